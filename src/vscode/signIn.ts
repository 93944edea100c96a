/**
 * Signing in to an agent that answered "authentication required": offer its `authMethods`. An agent
 * method is run with `authenticate`; a terminal method runs the agent's own command (plus the method's
 * args and env) in a VS Code terminal for the user, and the agent is restarted when that succeeds.
 */
import * as vscode from 'vscode';
import type { Logger } from '../common/logger';
import type { AuthMethod } from '../acp/port/agentConnection';
import type { AgentsFromSettings } from './agents';

type KnownMethod = Exclude<AuthMethod, { type: 'unknown' }>;

export class SignIn {
  constructor(
    private readonly agents: AgentsFromSettings,
    private readonly logger: Logger,
    /** Restarts an agent and reopens its open chats (`AgentLifecycle.restartAgent`). */
    private readonly restart: (agentName: string) => Promise<unknown>,
  ) {}

  /** Runs the sign-in (asking which method unless `methodId` says); resolves true when it succeeded. */
  async run(agentName: string, methodId?: string): Promise<boolean> {
    const connection = await this.agents.registry.start(agentName);
    const methods = connection.caps.authMethods.filter((m): m is KnownMethod => m.type !== 'unknown');
    if (methods.length === 0) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          "{0} asked to sign in but offers no sign-in method ACP Workspace can run. Sign in with the agent's own tools, then restart it.",
          agentName,
        ),
      );
      return false;
    }
    const method =
      methods.find((m) => m.id === methodId) ??
      (methods.length === 1
        ? methods[0]
        : (
            await vscode.window.showQuickPick(
              methods.map((m) => ({
                label: m.name,
                description: m.type === 'terminal' ? 'in a terminal' : undefined,
                detail: m.description ?? undefined,
                method: m,
              })),
              { title: vscode.l10n.t('Sign in to {0}', agentName), placeHolder: vscode.l10n.t('How do you want to sign in?') },
            )
          )?.method);
    if (!method) return false;
    if (method.type === 'terminal') return this.inTerminal(agentName, method);
    await connection.authenticate(method.id);
    this.logger.info(`Signed in to ${agentName} with ${method.name}.`);
    void vscode.window.showInformationMessage(vscode.l10n.t('Signed in to {0}.', agentName));
    return true;
  }

  private async inTerminal(agentName: string, method: Extract<KnownMethod, { type: 'terminal' }>): Promise<boolean> {
    const command = this.agents.commandFor(agentName);
    if (!command) return false;
    const terminal = vscode.window.createTerminal({
      name: `Sign in: ${agentName}`,
      shellPath: command.command,
      shellArgs: [...command.args, ...method.args],
      env: { ...command.env, ...method.env },
    });
    terminal.show();
    const code = await new Promise<number | undefined>((resolve) => {
      const subscription = vscode.window.onDidCloseTerminal((closed) => {
        if (closed !== terminal) return;
        subscription.dispose();
        resolve(closed.exitStatus?.code);
      });
    });
    if (code !== 0) {
      void vscode.window.showWarningMessage(
        code === undefined
          ? vscode.l10n.t('Signing in to {0} did not finish.', agentName)
          : vscode.l10n.t('Signing in to {0} did not finish (exit code {1}).', agentName, code),
      );
      return false;
    }
    await this.restart(agentName);
    void vscode.window.showInformationMessage(vscode.l10n.t('Signed in to {0}; it was restarted.', agentName));
    return true;
  }
}
