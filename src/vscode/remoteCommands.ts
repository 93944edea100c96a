/**
 * Commands about agents that run elsewhere: "Add Remote Agent…" (the questions of {@link AddRemoteAgent} as VS Code
 * prompts) and "Set Remote Agent Token…" (a bearer token or headers into SecretStorage; then the agents that use
 * them and were refused, or wait to reconnect, connect again with them at once, and the running ones are offered a
 * restart; either way through the Restart command, so their chats reopen).
 */
import * as vscode from 'vscode';
import { isRemoteAgent } from '../agents/agentConfig';
import type { AgentRegistry, AgentStatus } from '../agents/agentRegistry';
import { displayUrl } from '../acp/transport/remote';
import type { AddRemoteAgent, RemoteAgentUi, SandboxAgentSummary } from '../sessions/agents/addRemoteAgent';
import { checkToken, parseHeaderLines, remoteSecretKey } from '../sessions/agents/remoteAgentEntry';
import type { RemoteSecrets } from './remoteSecrets';
import { AgentCommandIds } from './agentCommands';

export const RemoteCommandIds = {
  addRemoteAgent: 'acpWorkspace.addRemoteAgent',
  setRemoteAgentToken: 'acpWorkspace.setRemoteAgentToken',
} as const;

/** What Set Remote Agent Token… does with the credentials. */
export type TokenAction = 'token' | 'headers' | 'clear';

/** The questions of Set Remote Agent Token… (integration tests answer them instead of the real prompts). */
export interface RemoteTokenUi {
  /** Token, headers or clear; `current` says what is set (never a value). undefined = cancelled. */
  pickAction(agentName: string, where: string, current: { readonly token: boolean; readonly headers: readonly string[] }): Promise<TokenAction | undefined>;
  /** The bearer token (password box); '' removes it; undefined = cancelled. */
  askToken(where: string, validate: (text: string) => string | undefined): Promise<string | undefined>;
  /** Header lines (`Name: value; …`); '' removes them; undefined = cancelled. */
  askHeaders(where: string, validate: (text: string) => string | undefined): Promise<string | undefined>;
  /** Says what was done; with running agents, offers to restart them: true when the user chose to. */
  done(message: string, restartLabel: string | undefined): Promise<boolean>;
}

export interface RemoteCommandsOptions {
  readonly addRemoteAgent: AddRemoteAgent;
  readonly secrets: RemoteSecrets;
  readonly agents: AgentRegistry;
  readonly tokenUi: () => RemoteTokenUi;
}

export function registerRemoteCommands(options: RemoteCommandsOptions): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(RemoteCommandIds.addRemoteAgent, () => options.addRemoteAgent.run()),
    // Resolves with whether credentials were saved (a failed New Session starts again then).
    vscode.commands.registerCommand(RemoteCommandIds.setRemoteAgentToken, (argument: AgentStatus | string | undefined) => setToken(options, argument)),
  ];
}

/**
 * Set Remote Agent Token…: which agent, then a token, headers, or clear. Then the agents that use these credentials
 * and are down (refused, or waiting to reconnect) connect again at once, and the running ones are offered a restart.
 * Resolves with whether anything was saved or cleared.
 */
async function setToken(options: RemoteCommandsOptions, argument: AgentStatus | string | undefined): Promise<boolean> {
  const agent = await resolveRemoteAgent(options.agents, argument);
  if (!agent || !isRemoteAgent(agent.definition)) return false;
  const url = agent.definition.remote.url;
  const where = displayUrl(url);
  const current = await options.secrets.get(url);
  const ui = options.tokenUi();
  const action = await ui.pickAction(agent.definition.name, where, { token: current.token !== undefined, headers: Object.keys(current.headers ?? {}) });
  if (!action) return false;
  let removed = false;
  switch (action) {
    case 'token': {
      const typed = await ui.askToken(where, checkToken);
      if (typed === undefined || checkToken(typed) !== undefined) return false;
      const { token: _old, ...rest } = current;
      await options.secrets.set(url, typed.trim() === '' ? rest : { ...rest, token: typed.trim() });
      break;
    }
    case 'headers': {
      const typed = await ui.askHeaders(where, headerProblem);
      if (typed === undefined) return false;
      const parsed = parseHeaderLines(typed);
      if ('error' in parsed) return false;
      const { headers: _old, ...rest } = current;
      await options.secrets.set(url, Object.keys(parsed.headers).length === 0 ? rest : { ...rest, headers: parsed.headers });
      break;
    }
    case 'clear':
      await options.secrets.clear(url);
      removed = true;
      break;
  }
  const said = removed ? vscode.l10n.t('The credentials for {0} were removed.', where) : vscode.l10n.t('The credentials for {0} were saved.', where);
  const key = remoteSecretKey(url);
  const using = options.agents.list().filter((s) => isRemoteAgent(s.definition) && remoteSecretKey(s.definition.remote.url) === key);
  // Failed (its token refused, say) or waiting to reconnect: nothing runs to interrupt, and the new credentials may
  // be what it needed. Restarting reopens its chats, which leave their error behind.
  const waiting = removed ? [] : using.filter((s) => s.state === 'failed' || s.process?.remote?.reconnectAt !== undefined).map((s) => s.definition.name);
  const running = using.filter((s) => (s.state === 'running' || s.state === 'starting') && !waiting.includes(s.definition.name)).map((s) => s.definition.name);
  for (const name of waiting) await vscode.commands.executeCommand(AgentCommandIds.restart, name);
  const reconnected =
    waiting.length === 0
      ? said
      : waiting.length === 1
        ? vscode.l10n.t('{0} {1} connects again with them.', said, waiting[0]!)
        : vscode.l10n.t('{0} {1} agents connect again with them.', said, waiting.length);
  if (running.length === 0) {
    await ui.done(reconnected, undefined);
    return true;
  }
  // The running agents that use these credentials apply them when they connect again: offer to restart them.
  const restart = running.length === 1 ? vscode.l10n.t('Restart {0}', running[0]!) : vscode.l10n.t('Restart {0} Agents', running.length);
  // Those that were waiting were restarted above: say so before offering the others a restart.
  if (!(await ui.done(vscode.l10n.t('{0} Running agents use them from their next connection.', reconnected), restart))) return true;
  // Through the Restart command: the agent's open chats are reopened.
  for (const name of running) await vscode.commands.executeCommand(AgentCommandIds.restart, name);
  return true;
}

function headerProblem(text: string): string | undefined {
  const parsed = parseHeaderLines(text);
  return 'error' in parsed ? parsed.error : undefined;
}

/** The questions of Set Remote Agent Token… as VS Code prompts. */
export const vscodeRemoteTokenUi: RemoteTokenUi = {
  async pickAction(agentName, where, current) {
    const items = [
      { label: vscode.l10n.t('Bearer token'), description: current.token ? vscode.l10n.t('set') : vscode.l10n.t('not set'), action: 'token' as const },
      {
        label: vscode.l10n.t('Headers…'),
        description: current.headers.length > 0 ? vscode.l10n.t('{0} set', current.headers.join(', ')) : vscode.l10n.t('none'),
        action: 'headers' as const,
      },
      { label: vscode.l10n.t('Clear'), description: vscode.l10n.t('forget the token and headers for {0}', where), action: 'clear' as const },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Set Remote Agent Token: {0}', agentName),
      placeHolder: vscode.l10n.t('Credentials for {0}, kept in secret storage', where),
    });
    return picked?.action;
  },
  askToken: async (where, validate) =>
    vscode.window.showInputBox({
      title: vscode.l10n.t('Bearer token for {0}', where),
      prompt: vscode.l10n.t('Sent as "Authorization: Bearer …". Empty removes the token.'),
      password: true,
      ignoreFocusOut: true,
      validateInput: validate,
    }),
  askHeaders: async (where, validate) =>
    vscode.window.showInputBox({
      title: vscode.l10n.t('Headers for {0}', where),
      prompt: vscode.l10n.t('"Name: value" pairs separated by ";" (the values are not shown again). Empty removes the headers.'),
      placeHolder: vscode.l10n.t('X-Api-Key: …; X-Team: …'),
      password: true,
      ignoreFocusOut: true,
      validateInput: validate,
    }),
  async done(message, restartLabel) {
    if (restartLabel === undefined) {
      void vscode.window.showInformationMessage(message);
      return false;
    }
    return (await vscode.window.showInformationMessage(message, restartLabel)) === restartLabel;
  },
};

/** The remote agent an argument names, or the one the user picks. */
async function resolveRemoteAgent(agents: AgentRegistry, argument: AgentStatus | string | undefined): Promise<AgentStatus | undefined> {
  if (argument !== undefined) {
    const found = agents.find(typeof argument === 'string' ? argument : argument.definition.name);
    if (!found || !isRemoteAgent(found.definition))
      void vscode.window.showWarningMessage(vscode.l10n.t('"{0}" is not a remote agent.', typeof argument === 'string' ? argument : argument.definition.name));
    return found;
  }
  const remote = agents.list().filter((s) => isRemoteAgent(s.definition));
  if (remote.length === 0) {
    const add = vscode.l10n.t('Add Remote Agent…');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('No remote agent is configured.'), add);
    if (choice === add) await vscode.commands.executeCommand(RemoteCommandIds.addRemoteAgent);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    remote.map((status) => ({ label: status.definition.name, description: status.definition.description, status })),
    { title: vscode.l10n.t('Set Remote Agent Token'), placeHolder: vscode.l10n.t('For which remote agent?') },
  );
  return picked?.status;
}

/** The questions of Add Remote Agent… as VS Code prompts. */
export const vscodeRemoteAgentUi: RemoteAgentUi = {
  askUrl: async (validate) =>
    vscode.window.showInputBox({
      title: vscode.l10n.t('Add Remote Agent'),
      prompt: vscode.l10n.t("The agent's URL (wss://… for WebSocket, https://… for Streamable HTTP) or a Sandbox Agent server's base URL (https://host:port)."),
      placeHolder: 'https://sandbox.example.com:2468',
      ignoreFocusOut: true,
      validateInput: validate,
    }),

  async confirmInsecure(url) {
    const allow = vscode.l10n.t('Allow Unencrypted');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('{0} is not encrypted', displayUrl(url)),
      {
        modal: true,
        detail: vscode.l10n.t(
          'Plain ws:// and http:// are used only to this machine unless you allow them. Your code, the agent\'s answers and the token cross the network readable by anyone on the way. Allow it only on a network you trust ("allowInsecure": true is written in the entry).',
        ),
      },
      allow,
    );
    return choice === allow;
  },

  async confirmUnreachable(url, reason) {
    const add = vscode.l10n.t('Add Anyway');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Nothing answered at {0}', displayUrl(url)),
      { modal: true, detail: vscode.l10n.t('{0} Add the agent anyway (it is reached when a session starts), or cancel and check the address.', reason) },
      add,
    );
    return choice === add;
  },

  askToken: async (server, reason, validate) =>
    vscode.window.showInputBox({
      title: vscode.l10n.t('Token for {0}', displayUrl(server)),
      prompt: reason,
      password: true,
      ignoreFocusOut: true,
      validateInput: validate,
    }),

  async pickSandboxAgent(server, agents) {
    const picked = await vscode.window.showQuickPick(
      agents.map((agent) => ({ label: agent.id, description: agentLine(agent), detail: capabilityLine(agent), agent })),
      {
        title: vscode.l10n.t('Agents on {0}', displayUrl(server)),
        placeHolder: vscode.l10n.t('Which agent of the Sandbox Agent server?'),
        matchOnDescription: true,
        ignoreFocusOut: true,
      },
    );
    return picked?.agent;
  },

  async confirmInstall(server, agentId) {
    const install = vscode.l10n.t('Install on the Server');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('{0} is not installed on {1}. Install it there?', agentId, displayUrl(server)),
      { modal: true, detail: vscode.l10n.t('The server downloads the agent and keeps it in its own agent folder.') },
      install,
    );
    return choice === install;
  },

  withProgress: (title, task) =>
    Promise.resolve(
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (_progress, token) => {
        const controller = new AbortController();
        const cancelled = token.onCancellationRequested(() => controller.abort());
        try {
          return await task(controller.signal);
        } finally {
          cancelled.dispose();
        }
      }),
    ),

  askName: async (suggested, validate) =>
    vscode.window.showInputBox({
      title: vscode.l10n.t('Add Remote Agent'),
      prompt: vscode.l10n.t('A name for the agent (in pickers and the Agents view).'),
      value: suggested,
      ignoreFocusOut: true,
      validateInput: validate,
    }),

  askMapping: async (agentName, folder, suggested, validate) =>
    vscode.window.showInputBox({
      title: vscode.l10n.t('Path {0} sees for {1}', agentName, folder.name),
      prompt: vscode.l10n.t(
        'The folder {0} as the agent sees it (an absolute path). Leave it empty not to share this folder; leave every folder empty if the agent sees the same paths as this machine.',
        folder.path,
      ),
      value: suggested,
      ignoreFocusOut: true,
      validateInput: validate,
    }),

  error: (message) => void vscode.window.showErrorMessage(message),

  added: (name, message) => {
    const token = vscode.l10n.t('Set Token…');
    void vscode.window.showInformationMessage(message, token).then((choice) => {
      if (choice === token) void vscode.commands.executeCommand(RemoteCommandIds.setRemoteAgentToken, name);
    });
  },
};

function agentLine(agent: SandboxAgentSummary): string {
  return [
    agent.installed ? (agent.version ? vscode.l10n.t('installed {0}', agent.version) : vscode.l10n.t('installed')) : vscode.l10n.t('not installed'),
    agent.credentialsAvailable === true
      ? vscode.l10n.t('credentials available')
      : agent.credentialsAvailable === false
        ? vscode.l10n.t('no credentials on the server')
        : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
}

function capabilityLine(agent: SandboxAgentSummary): string {
  const supported = Object.entries(agent.capabilities)
    .filter(([, value]) => value === true)
    .map(([name]) => name);
  return supported.length > 0 ? vscode.l10n.t('Supports: {0}', supported.slice(0, 12).join(', ')) : '';
}
