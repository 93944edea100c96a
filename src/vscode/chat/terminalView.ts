/**
 * "Show in Terminal": a VS Code terminal that shows an agent terminal's output so far and follows it
 * until the command exits (read-only: the agent owns the process).
 */
import * as vscode from 'vscode';
import type { Terminals } from '../../terminal/terminals';

export function showAgentTerminal(terminals: Terminals, terminalId: string, agentName: string): vscode.Terminal | undefined {
  const view = terminals.get(terminalId);
  if (!view) return undefined;
  const writeEmitter = new vscode.EventEmitter<string>();
  let shown = 0;
  let subscription: { dispose(): void } | undefined;
  const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');
  const pump = () => {
    const current = terminals.get(terminalId);
    if (!current) return;
    // Output can be truncated from the front: show what is new, or all of it after a truncation.
    const output = current.output;
    const next = output.length >= shown ? output.slice(shown) : output;
    shown = output.length;
    if (next) writeEmitter.fire(crlf(next));
    if (current.exitStatus) {
      const status = current.exitStatus.signal
        ? vscode.l10n.t('killed by {0}', current.exitStatus.signal)
        : vscode.l10n.t('exited with code {0}', current.exitStatus.exitCode ?? '?');
      writeEmitter.fire(`\r\n\x1b[2m[${status}]\x1b[0m\r\n`);
      subscription?.dispose();
      subscription = undefined;
    }
  };
  const pty: vscode.Pseudoterminal = {
    onDidWrite: writeEmitter.event,
    open: () => {
      writeEmitter.fire(`\x1b[2m${agentName} ran: ${view.commandLine}  (in ${view.cwd})\x1b[0m\r\n`);
      pump();
      if (!terminals.get(terminalId)?.exitStatus) subscription = terminals.onDidChange((id) => id === terminalId && pump());
    },
    close: () => {
      subscription?.dispose();
      writeEmitter.dispose();
    },
  };
  const terminal = vscode.window.createTerminal({ name: `${agentName}: ${view.command}`, pty });
  terminal.show(true);
  return terminal;
}
