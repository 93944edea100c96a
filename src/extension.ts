/**
 * ACP Workspace: the composition root. Builds the objects and registers every disposable; the logic
 * lives in the modules it wires together.
 */
import * as vscode from 'vscode';
import { registerAgentCommands } from './vscode/agentCommands';
import { Agents } from './vscode/agents';
import { AgentsView } from './vscode/agentsView';
import { createLog } from './vscode/log';

/** What integration tests reach (only in the Extension Test mode; `undefined` for everyone else). */
export interface TestApi {
  readonly agents: Agents;
}

let agents: Agents | undefined;

export function activate(context: vscode.ExtensionContext): TestApi | undefined {
  const { channel, logger } = createLog();
  context.subscriptions.push(channel);
  agents = new Agents({ context, logger, features: {} });
  context.subscriptions.push(agents, new AgentsView(agents), ...registerAgentCommands(agents, channel));
  logger.info(`ACP Workspace ${String(context.extension.packageJSON.version)} activated.`);
  return context.extensionMode === vscode.ExtensionMode.Test ? { agents } : undefined;
}

/** VS Code waits for this: every agent process tree is gone when it settles. */
export async function deactivate(): Promise<void> {
  await agents?.stopAll();
  agents = undefined;
}
