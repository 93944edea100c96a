/** The "ACP Workspace" log (Output view), as the logger the protocol layer writes to. */
import * as vscode from 'vscode';
import type { Logger } from '../common/logger';

export function createLog(): { channel: vscode.LogOutputChannel; logger: Logger } {
  const channel = vscode.window.createOutputChannel('ACP Workspace', { log: true });
  const logger: Logger = {
    trace: (message) => channel.trace(message),
    info: (message) => channel.info(message),
    warn: (message) => channel.warn(message),
    error: (message) => channel.error(message),
  };
  return { channel, logger };
}
