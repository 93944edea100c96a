/**
 * The "Agents" view: every configured agent, its state, what it supports, and start/stop/restart; under
 * each agent its open sessions with the folders they were given, what was refused, and whether the
 * workspace's folders changed since.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { markdownText } from '../common/markdownText';
import { isRemoteAgent, remoteAgentConfig, remoteKindOf, type RemoteAgentDefinition } from '../agents/agentConfig';
import { displayUrl } from '../acp/transport/remote';
import type { AgentCaps } from '../acp/capabilities';
import { listInWords } from '../roots/rootSet';
import type { ActiveSessions } from '../sessions/routing/activeSessions';
import { AgentSession } from '../sessions/routing/agentSession';
import type { AgentConfinement, ConfinementView } from '../sessions/agents/agentConfinement';
import type { RegistryAgents } from '../sessions/agents/registryAgents';
import type { SessionTitles } from '../sessions/opening/sessionTitles';
import type { AgentRegistry, AgentStatus } from '../agents/agentRegistry';
import { Disposable } from '../common/lifecycle';
import { datedTitle } from '../history/sessionTitle';
import { readDefaultAgent, affectsUs } from './settings';

type Node = AgentStatus | AgentSession;

/** A function: t() runs after activate() set the bundle. */
const stateLabel = (): Record<AgentStatus['state'], string> => ({
  starting: vscode.l10n.t('starting…'),
  running: vscode.l10n.t('running'),
  stopping: vscode.l10n.t('stopping…'),
  stopped: vscode.l10n.t('not running'),
  failed: vscode.l10n.t('failed'),
});

export class AgentsView extends Disposable implements vscode.TreeDataProvider<Node> {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changeEmitter.event;
  /** Refreshes the view while a remote agent counts down to its next reconnect ("reconnecting in N s"). */
  private countdown: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly agents: AgentRegistry,
    private readonly sessions: ActiveSessions,
    private readonly confinement?: Pick<AgentConfinement, 'view' | 'onDidChange'>,
    private readonly titles?: Pick<SessionTitles, 'titleOf' | 'onDidChange'>,
    /** Registry agents: the version the registry lists (an update), an install or update running now. */
    private readonly registry?: Pick<RegistryAgents, 'updateFor' | 'busy' | 'onDidChange'>,
  ) {
    super();
    if (registry) this._register(registry.onDidChange(() => this.changeEmitter.fire()));
    if (titles) this._register(titles.onDidChange(() => this.changeEmitter.fire()));
    if (confinement) this._register(confinement.onDidChange(() => this.changeEmitter.fire()));
    this._register(agents.onDidChange(() => this.changeEmitter.fire()));
    this._register(sessions.onDidChange(() => this.changeEmitter.fire()));
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsUs(event, 'defaultAgent')) this.changeEmitter.fire();
      }),
    );
    // The view's welcome content (package.json `viewsWelcome`) says why it is empty and what to do.
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.changeEmitter.fire()));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.changeEmitter.fire()));
    this._register({ dispose: () => clearTimeout(this.countdown) });
  }

  /**
   * No agents in Restricted Mode (none would start) or without a folder (a session needs one): the view is
   * empty then, and VS Code shows its welcome content for that case instead.
   */
  getChildren(element?: Node): Node[] {
    if (!element) return vscode.workspace.isTrusted && (vscode.workspace.workspaceFolders?.length ?? 0) > 0 ? this.agents.list() : [];
    if (element instanceof AgentSession) return [];
    return this.sessions.forAgent(element.definition.name);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (!(node instanceof AgentSession)) return this.agentItem(node);
    // The session's one title (the same as its chat tab's and its Sessions row's).
    return sessionItem(node, this.titles?.titleOf(node.agentName, node.sessionId, node.openedAt) ?? datedTitle(node.openedAt));
  }

  private agentItem(status: AgentStatus): vscode.TreeItem {
    const { definition, state } = status;
    const hasSessions = this.sessions.forAgent(definition.name).length > 0;
    const item = new vscode.TreeItem(definition.name, hasSessions ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    const isDefault = readDefaultAgent() === definition.name;
    const caps = status.process?.caps;
    const version = caps?.agentInfo ? ` · ${caps.agentInfo.title ?? caps.agentInfo.name} ${caps.agentInfo.version}` : '';
    const running = state === 'running' || state === 'starting';
    const confinement = running ? this.confinement?.view(definition.name) : undefined;
    const origin = definition.registry;
    // Only an installed registry agent is updated or uninstalled here; a preset run from its catalog entry follows the catalog.
    const installed = origin?.installed === true ? origin : undefined;
    const update = installed && this.registry?.updateFor(installed.id);
    const busy = installed && this.registry?.busy(installed.id);
    // The version shows for an installed agent (what Update changes); a preset run from its catalog entry says it in the tooltip.
    const registryLine = [
      installed && !caps?.agentInfo ? vscode.l10n.t('v{0}', installed.version) : undefined,
      busy ? busyLabel(busy) : update ? vscode.l10n.t('update available: {0}', update) : undefined,
    ];
    const remote = isRemoteAgent(definition);
    const reconnect = remote ? this.reconnectLabel(status) : undefined;
    item.description = [
      isDefault ? vscode.l10n.t('default') : undefined,
      `${reconnect ?? stateLabel()[state]}${version}`,
      ...registryLine,
      confinement?.summary,
      confinement?.pending,
      status.stale ? (origin ? vscode.l10n.t('restart to apply the new version or settings') : vscode.l10n.t('restart to apply settings')) : undefined,
    ]
      .filter(Boolean)
      .join(' · ');
    item.iconPath = reconnect
      ? new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('list.warningForeground'))
      : remote && (state === 'running' || state === 'stopped')
        ? new vscode.ThemeIcon('remote', state === 'running' ? new vscode.ThemeColor('testing.iconPassed') : undefined)
        : iconFor(state);
    item.contextValue = `agent.${state}${installed ? '.registry' : ''}${update ? '.update' : ''}${remote ? '.remote' : ''}`;
    item.id = `agent:${definition.name}`;
    item.accessibilityInformation = {
      label: [
        definition.name,
        remote ? vscode.l10n.t('remote agent') : undefined,
        reconnect ?? stateLabel()[state],
        isDefault ? vscode.l10n.t('default agent') : undefined,
        ...registryLine,
        confinement?.summary,
        confinement?.pending,
      ]
        .filter(Boolean)
        .join(', '),
    };
    item.tooltip = tooltipFor(status, caps, confinement, update);
    return item;
  }

  /** "reconnecting in N s" while a remote agent waits for its next attempt; the view is refreshed each second meanwhile. */
  private reconnectLabel(status: AgentStatus): string | undefined {
    const at = status.process?.remote?.reconnectAt;
    if (at === undefined || (status.state !== 'starting' && status.state !== 'failed' && status.state !== 'stopped')) return undefined;
    const seconds = Math.ceil((at - Date.now()) / 1000);
    if (seconds <= 0) return vscode.l10n.t('reconnecting…');
    if (this.countdown === undefined) {
      this.countdown = setTimeout(() => {
        this.countdown = undefined;
        this.changeEmitter.fire();
      }, 1000);
    }
    return vscode.l10n.t('reconnecting in {0} s', seconds);
  }
}

function sessionItem(session: AgentSession, title: string): vscode.TreeItem {
  const { rootSet, stale, refusals } = session;
  const withdrawn = new Set(session.withdrawn);
  const names = [rootSet.cwd, ...rootSet.additionalDirectories].filter((root) => !withdrawn.has(root.path)).map((root) => root.name);
  const taken = [rootSet.cwd, ...rootSet.additionalDirectories].filter((root) => withdrawn.has(root.path)).map((root) => root.name);
  const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.None);
  item.id = `session:${session.agentName}:${session.sessionId}`;
  item.description = [
    names.join(', '),
    taken.length > 0 ? vscode.l10n.t('no longer shared: {0}', taken.join(', ')) : undefined,
    stale ? vscode.l10n.t('folders changed') : undefined,
    refusals.length > 0 ? vscode.l10n.t('{0} refused', refusals.length) : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  item.iconPath = stale
    ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
    : refusals.length > 0
      ? new vscode.ThemeIcon('shield', new vscode.ThemeColor('list.warningForeground'))
      : new vscode.ThemeIcon('comment-discussion');
  item.contextValue = stale ? 'session.stale' : 'session';
  item.command = { command: 'acpWorkspace.showSession', title: vscode.l10n.t('Show Session'), arguments: [session] };
  item.accessibilityInformation = {
    label: [
      vscode.l10n.t('{0}, session with {1} sharing {2}', title, session.agentName, listInWords(names)),
      stale ? vscode.l10n.t('workspace folders changed') : undefined,
      refusals.length > 0 ? vscode.l10n.t('{0} requests refused', refusals.length) : undefined,
    ]
      .filter(Boolean)
      .join(', '),
  };
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(
    `**${escape(title)}**\n\n${vscode.l10n.t('Session {0} with {1}', `\`${session.sessionId}\``, escape(session.agentName))}\n\n**${vscode.l10n.t('Shared folders')}**\n\n`,
  );
  const gone = (root: { path: string }) => (withdrawn.has(root.path) ? ` — ${vscode.l10n.t('no longer shared: refused from now on')}` : '');
  md.appendMarkdown(`- ${vscode.l10n.t('{0} (primary): {1}', escape(rootSet.cwd.name), `\`${rootSet.cwd.path}\``)}${gone(rootSet.cwd)}\n`);
  for (const root of rootSet.additionalDirectories) md.appendMarkdown(`- ${escape(root.name)}: \`${root.path}\`${gone(root)}\n`);
  if (stale) md.appendMarkdown(`\n$(warning) ${escape(stale.reason)}\n`);
  if (refusals.length > 0) {
    md.appendMarkdown(
      `\n${vscode.l10n.t("**Refused requests** (latest {0} of {1}; the agent's own tools are not confined by this)", Math.min(5, refusals.length), refusals.length)}\n\n`,
    );
    for (const refusal of refusals.slice(-5)) {
      md.appendMarkdown(
        `- ${refusal.command ? vscode.l10n.t('{0} {1} in {2}', refusal.operation, `\`${refusal.command}\``, `\`${refusal.path}\``) : `${refusal.operation} \`${refusal.path}\``}\n`,
      );
    }
  }
  item.tooltip = md;
  return item;
}

function iconFor(state: AgentStatus['state']): vscode.ThemeIcon {
  switch (state) {
    case 'running':
      return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
    case 'starting':
    case 'stopping':
      return new vscode.ThemeIcon('loading~spin');
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    case 'stopped':
      return new vscode.ThemeIcon('circle-large-outline');
  }
}

/** An install, update or uninstall running on a registry agent, in a few words. */
function busyLabel(busy: NonNullable<ReturnType<RegistryAgents['busy']>>): string {
  const percent = busy.progress.fraction === undefined ? undefined : Math.round(busy.progress.fraction * 100);
  switch (busy.action) {
    case 'install':
      return percent === undefined ? vscode.l10n.t('installing…') : vscode.l10n.t('installing… {0}%', percent);
    case 'update':
      return percent === undefined ? vscode.l10n.t('updating…') : vscode.l10n.t('updating… {0}%', percent);
    case 'uninstall':
      return vscode.l10n.t('uninstalling…');
  }
}

function tooltipFor(
  status: AgentStatus,
  caps: AgentCaps | undefined,
  confinement: ConfinementView | undefined,
  update: string | undefined,
): vscode.MarkdownString {
  const { definition } = status;
  const md = new vscode.MarkdownString(undefined, true);
  // An agent from the settings is described by its command line, which the code block shows.
  const about = definition.source === 'settings' ? vscode.l10n.t('from the acpWorkspace.agents setting') : definition.description;
  md.appendMarkdown(`**${escape(definition.name)}**: ${escape(about)}\n\n`);
  const origin = definition.registry;
  if (origin) {
    md.appendMarkdown(
      `${escape(
        origin.installed
          ? vscode.l10n.t('From the ACP Registry ({0}): version {1}, installed ({2}).', origin.id, origin.version, origin.distribution)
          : vscode.l10n.t('From the ACP Registry ({0}): version {1}, run by {2} without installing.', origin.id, origin.version, origin.distribution),
      )}\n\n`,
    );
    if (update) md.appendMarkdown(`$(cloud-download) ${escape(vscode.l10n.t('Update available: {0} → {1}.', origin.version, update))}\n\n`);
  }
  if (isRemoteAgent(definition)) appendRemote(md, definition);
  else md.appendCodeblock([definition.command, ...definition.args].join(' '), 'shell');
  if (status.message) md.appendMarkdown(`\n$(warning) ${escape(status.message)}\n`);
  if (confinement) {
    md.appendMarkdown(`\n${confinement.confined ? '$(lock)' : '$(unlock)'} **${escape(confinement.label)}**\n`);
    md.appendCodeblock(confinement.detail, 'text');
    if (confinement.pending) md.appendMarkdown(`\n$(warning) ${escape(confinement.pending)}\n`);
  }
  if (caps) {
    const yes = (flag: boolean) => (flag ? '$(check)' : '$(dash)');
    md.appendMarkdown(`\n${escape(vscode.l10n.t('Speaks ACP v{0}.', caps.protocolVersion))}`);
    // ACP v2 has no client file system or terminals: what guards the user's files is said where it matters.
    if (caps.protocolVersion >= 2) {
      md.appendMarkdown(
        ` ${escape(
          confinement?.confined
            ? vscode.l10n.t(
                'It reads and writes files and runs commands itself (ACP v2 has no client file system), so the folder guard does not apply: its confinement limits where it can write, and checkpoints let you review and undo what it changes.',
              )
            : vscode.l10n.t(
                'It reads and writes files and runs commands itself (ACP v2 has no client file system), so the folder guard does not apply and it is not confined: only checkpoints let you review and undo what it changes.',
              ),
        )}`,
      );
    }
    md.appendMarkdown(
      [
        '',
        `${yes(caps.sessions.additionalDirectories)} ${vscode.l10n.t('shares all workspace folders (additionalDirectories)')}`,
        `${yes(caps.sessions.list)} ${vscode.l10n.t('session history (session/list)')}`,
        `${yes(caps.loadSession)} ${caps.protocolVersion >= 2 ? vscode.l10n.t('reopen with history (session/resume with replayFrom)') : vscode.l10n.t('reopen with history (session/load)')}`,
        `${yes(caps.sessions.resume)} ${vscode.l10n.t('resume (session/resume)')}`,
        `${yes(caps.sessions.fork)} ${vscode.l10n.t('fork (session/fork)')}`,
        `${yes(caps.prompt.image)} ${vscode.l10n.t('images in prompts')}`,
      ].join('\n\n'),
    );
  }
  return md;
}

/** Where a remote agent is (never a secret: the URL without its query), and which folders it sees. */
function appendRemote(md: vscode.MarkdownString, definition: RemoteAgentDefinition): void {
  const { remote } = definition;
  const kind = remoteKindOf(remote);
  const transport =
    kind === 'websocket'
      ? vscode.l10n.t('WebSocket')
      : kind === 'http'
        ? vscode.l10n.t('Streamable HTTP')
        : vscode.l10n.t('Sandbox Agent server, agent {0}', remote.sandboxAgent ?? '?');
  md.appendMarkdown(
    `$(remote) \`${displayUrl(remote.url)}\` · ${escape(transport)}${remote.allowInsecure ? ` · $(unlock) ${escape(vscode.l10n.t('unencrypted (allowInsecure)'))}` : ''}\n\n`,
  );
  const { pathMappings } = remoteAgentConfig(remote, os.homedir());
  if (pathMappings.length === 0) {
    md.appendMarkdown(`${escape(vscode.l10n.t('It sees the workspace folders at the same paths as this machine.'))}\n\n`);
    return;
  }
  md.appendMarkdown(`**${escape(vscode.l10n.t('Folders it sees'))}**\n\n`);
  for (const m of pathMappings) md.appendMarkdown(`- ${escape(m.local)} → ${escape(m.remote)}\n`);
  const mapped = new Set(pathMappings.map((m) => m.local.replace(/[\\/]+$/, '')));
  const notShared = (vscode.workspace.workspaceFolders ?? []).filter((f) => !mapped.has(f.uri.fsPath.replace(/[\\/]+$/, ''))).map((f) => f.name);
  if (notShared.length > 0) md.appendMarkdown(`\n$(circle-slash) ${escape(vscode.l10n.t('Not shared with it: {0}', listInWords(notShared)))}\n\n`);
  else md.appendMarkdown('\n');
}

/** Plain text for the Markdown tooltips: escaped, its URLs in code spans (an escaped URL shows its backslashes). */
function escape(text: string): string {
  return markdownText(text);
}
