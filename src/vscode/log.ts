/** The "ACP Workspace" log (Output view), as the logger everything writes to; text from agents is escaped. */
import * as vscode from 'vscode';
import { escapeControl, type Logger } from '../common/logger';

export function createLog(): { channel: vscode.LogOutputChannel; logger: Logger } {
  const channel = vscode.window.createOutputChannel('ACP Workspace', { log: true });
  const logger: Logger = {
    trace: (message) => channel.trace(escapeControl(message)),
    info: (message) => channel.info(escapeControl(message)),
    warn: (message) => channel.warn(escapeControl(message)),
    error: (message) => channel.error(escapeControl(message)),
  };
  return { channel, logger };
}
