/** The "ACP Workspace" log (Output view), as the logger the protocol layer writes to. */
import * as vscode from 'vscode';
import type { AcpLogger } from '../acp/logger';

export function createLog(): { channel: vscode.LogOutputChannel; logger: AcpLogger } {
  const channel = vscode.window.createOutputChannel('ACP Workspace', { log: true });
  const logger: AcpLogger = {
    trace: (message) => channel.trace(message),
    info: (message) => channel.info(message),
    warn: (message) => channel.warn(message),
    error: (message) => channel.error(message),
  };
  return { channel, logger };
}
