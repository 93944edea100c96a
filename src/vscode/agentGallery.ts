/**
 * The "Add Agent" tab: the ACP Registry's agents as cards (what works here, what is installed, updates,
 * progress), rendered by the `agents` webview from an {@link AgentGallerySource}. One tab at a time; showing it
 * again brings it forward and asks the registry again. The webview is not kept while the tab is hidden: it
 * asks for the state when it loads again (`ready`). The tab comes back after a window reload (VS Code hands it to
 * {@link AgentGalleryPanel.restore}; the webview kept its search and filter). Every verb from the webview is validated and checked
 * against the current state here; the source does the work and reports back through its onDidChange.
 */
import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';
import type { Logger } from '../common/logger';
import type { AgentGallerySource, GalleryAgent } from '../sessions/agents/agentGallery';
import { GalleryToHost, HostToGallery } from '../shared/agentGalleryProtocol';
import { agentLinks, galleryView, sessionAgentName, StatePacer } from '../sessions/agents/galleryView';
import { AGENT_GALLERY_VIEW_TYPE } from './contributionIds';
import { SessionCommandIds } from './sessionCommands';
import { webviewHtml, webviewOptions } from './webviewHtml';
import { errorMessage } from '../common/errors';

export { AGENT_GALLERY_VIEW_TYPE };

export interface AgentGalleryOptions {
  readonly logger: Logger;
}

export class AgentGalleryPanel extends Disposable {
  private static current: AgentGalleryPanel | undefined;

  /**
   * Opens the Add Agent tab, or brings the open one forward; either way the registry is asked again (the
   * source reports the answer, or why there is none, through its state).
   */
  static show(extensionUri: vscode.Uri, source: AgentGallerySource, options: AgentGalleryOptions): AgentGalleryPanel {
    const open = AgentGalleryPanel.current;
    if (open && open.source === source) {
      open.panel.reveal(undefined, false);
      void source.refresh();
      return open;
    }
    open?.dispose();
    const panel = new AgentGalleryPanel(extensionUri, source, options.logger);
    AgentGalleryPanel.current = panel;
    void source.refresh();
    return panel;
  }

  /**
   * The Add Agent tab VS Code restored after a window reload: it shows the gallery again, and the registry is asked
   * again. A second one (there is one at a time) is closed.
   */
  static restore(
    restored: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    source: AgentGallerySource,
    options: AgentGalleryOptions,
  ): AgentGalleryPanel | undefined {
    if (AgentGalleryPanel.current) {
      restored.dispose();
      return undefined;
    }
    const panel = new AgentGalleryPanel(extensionUri, source, options.logger, restored);
    AgentGalleryPanel.current = panel;
    void source.refresh();
    return panel;
  }

  /** Restores the Add Agent tab after a window reload (see {@link AgentGalleryPanel.restore}). */
  static serializer(extensionUri: vscode.Uri, source: AgentGallerySource, options: AgentGalleryOptions): vscode.WebviewPanelSerializer {
    return {
      deserializeWebviewPanel: (panel) => {
        AgentGalleryPanel.restore(panel, extensionUri, source, options);
        return Promise.resolve();
      },
    };
  }

  /** The open tab, if any (tests). */
  static get shown(): AgentGalleryPanel | undefined {
    return AgentGalleryPanel.current;
  }

  readonly panel: vscode.WebviewPanel;
  /** States posted so far (tests wait for them). */
  posts = 0;
  private readonly pacer: StatePacer;
  /** Icons fetched for this tab, by agent id (undefined: the agent has none that can be shown). */
  private readonly icons = new Map<string, string | undefined>();
  private readonly fetchingIcons = new Set<string>();

  private constructor(
    extensionUri: vscode.Uri,
    private readonly source: AgentGallerySource,
    private readonly logger: Logger,
    /** A tab VS Code restored after a reload, to show the gallery in (else a new tab). */
    restored?: vscode.WebviewPanel,
  ) {
    super();
    if (restored) {
      restored.title = vscode.l10n.t('Add Agent');
      restored.webview.options = webviewOptions(extensionUri);
    }
    this.panel = this._register(
      restored ??
        vscode.window.createWebviewPanel(AGENT_GALLERY_VIEW_TYPE, vscode.l10n.t('Add Agent'), vscode.ViewColumn.Active, {
          ...webviewOptions(extensionUri),
          retainContextWhenHidden: false,
        }),
    );
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'activitybar.svg');
    this.panel.webview.html = webviewHtml(this.panel.webview, extensionUri, 'agents', vscode.l10n.t('Add Agent'));
    this.pacer = new StatePacer(() => this.postState());
    this._register({ dispose: () => this.pacer.cancel() });
    this._register(source.onDidChange(() => this.pacer.schedule()));
    this._register(this.panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    this._register(this.panel.onDidDispose(() => this.dispose()));
  }

  override dispose(): void {
    if (AgentGalleryPanel.current === this) AgentGalleryPanel.current = undefined;
    super.dispose();
  }

  /** What the webview asks (tests call it like the webview does). */
  async handle(message: GalleryToHost): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.pacer.flush();
        return;
      case 'refresh':
        return this.source.refresh();
      case 'install':
        if (!this.find(message.id)) return;
        return this.source.install(message.id, message.kind);
      case 'cancel':
        this.source.cancel(message.id);
        return;
      case 'uninstall':
        return this.uninstall(message.id);
      case 'openLink': {
        const agent = this.find(message.id);
        if (!agent || !agentLinks(agent).includes(message.url)) {
          this.logger.warn(`The Add Agent tab asked to open a link that is not one of ${message.id}'s: ${message.url}`);
          return;
        }
        await vscode.env.openExternal(vscode.Uri.parse(message.url, true));
        return;
      }
      case 'startSession': {
        const agent = this.find(message.id);
        const name = agent && sessionAgentName(agent);
        if (name === undefined) return;
        await vscode.commands.executeCommand(SessionCommandIds.newSession, name);
        return;
      }
      case 'icons':
        for (const id of new Set(message.ids)) this.sendIcon(id);
        return;
    }
  }

  private find(id: string): GalleryAgent | undefined {
    return this.source.state().agents.find((entry) => entry.agent.id === id);
  }

  private async uninstall(id: string): Promise<void> {
    const agent = this.find(id);
    if (!agent?.installed || agent.busy) return;
    const name = agent.builtIn ?? agent.installed.name;
    const remove = vscode.l10n.t('Uninstall');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Uninstall {0} {1}?', name, agent.installed.version),
      {
        modal: true,
        detail:
          agent.installed.dir === undefined
            ? vscode.l10n.t(
                'ACP Workspace forgets the agent it installed from the registry. Sessions with it that are running keep going until the agent stops.',
              )
            : vscode.l10n.t(
                'ACP Workspace removes the agent it installed from the registry, and its files in {0}. Sessions with it that are running keep going until the agent stops.',
                agent.installed.dir,
              ),
      },
      remove,
    );
    if (choice !== remove) return;
    await this.source.uninstall(id);
  }

  private sendIcon(id: string): void {
    if (this.icons.has(id)) {
      this.postIcon(id, this.icons.get(id));
      return;
    }
    const agent = this.find(id);
    if (!agent?.agent.icon || this.fetchingIcons.has(id)) return;
    this.fetchingIcons.add(id);
    this.source
      .icon(id)
      .catch((error: unknown) => {
        this.logger.warn(`The icon of ${id} could not be read: ${errorMessage(error)}`);
        return undefined;
      })
      .then((dataUri) => {
        this.fetchingIcons.delete(id);
        if (this.isDisposed) return;
        this.icons.set(id, dataUri);
        this.postIcon(id, dataUri);
      });
  }

  private postIcon(id: string, dataUri: string | undefined): void {
    if (dataUri === undefined || !this.panel.visible) return;
    const message = HostToGallery.safeParse({ type: 'icon', id, dataUri });
    if (!message.success) {
      // Not an image the page may show (the webview would refuse it too): the card keeps its fallback icon.
      this.icons.set(id, undefined);
      this.logger.warn(`The icon of ${id} is not an image data URL the Add Agent tab can show.`);
      return;
    }
    void this.panel.webview.postMessage(message.data);
  }

  private postState(): void {
    // A hidden tab has no page (it is not retained): it asks for the state when it shows again.
    if (this.isDisposed || !this.panel.visible) return;
    this.posts++;
    void this.panel.webview.postMessage({ type: 'state', state: galleryView(this.source.state()) } satisfies HostToGallery);
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = GalleryToHost.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`Ignored an invalid message from the Add Agent tab: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      return;
    }
    try {
      await this.handle(parsed.data);
    } catch (error) {
      const text = errorMessage(error);
      this.logger.error(`Add Agent: ${parsed.data.type} failed: ${text}`);
      void vscode.window.showErrorMessage(text);
    }
  }
}
