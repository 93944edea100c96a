/**
 * The ACP Registry in the background: asked once after the core has loaded (never during activation) and then
 * at most once a day; when an installed agent has a new version, one notification per version ("Update available
 * for opencode: 1.2.3 → 1.3.0" [Update] [Later]), remembered across reloads.
 */
import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';
import type { RegistryAgents } from '../sessions/agents/registryAgents';
import { updatesToAnnounce } from '../sessions/agents/registryUpdates';
import { RegistryCommandIds } from './registryCommands';

const ANNOUNCED_KEY = 'acpWorkspace.registry.announcedUpdates';
/** After the core loads: long enough not to compete with what loaded it. */
const FIRST_REFRESH_MS = 10_000;
/** How often the catalog's age is checked; `refreshIfDue` asks the registry only once it is a day old. */
const CHECK_EVERY_MS = 60 * 60 * 1000;

export class RegistryUpdates extends Disposable {
  constructor(
    private readonly registryAgents: RegistryAgents,
    private readonly memory: vscode.Memento,
  ) {
    super();
    const first = setTimeout(() => void registryAgents.refreshIfDue(), FIRST_REFRESH_MS);
    const every = setInterval(() => void registryAgents.refreshIfDue(), CHECK_EVERY_MS);
    // Neither keeps the extension host alive.
    first.unref?.();
    every.unref?.();
    this._register({ dispose: () => (clearTimeout(first), clearInterval(every)) });
    this._register(registryAgents.onDidChangeAgents(() => this.announce()));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.announce()));
  }

  /** Shows the updates not announced yet (in a trusted workspace only: an update is refused otherwise). */
  announce(): void {
    if (!vscode.workspace.isTrusted) return;
    const { announce, record } = updatesToAnnounce(this.registryAgents.updates(), this.memory.get<unknown>(ANNOUNCED_KEY));
    void this.memory.update(ANNOUNCED_KEY, record);
    for (const update of announce) {
      const now = vscode.l10n.t('Update');
      const later = vscode.l10n.t('Later');
      void vscode.window
        .showInformationMessage(vscode.l10n.t('Update available for {0}: {1} → {2}', update.name, update.installed, update.available), now, later)
        .then((choice) => {
          if (choice === now) void vscode.commands.executeCommand(RegistryCommandIds.updateAgent, update.id);
        });
    }
  }
}
