/**
 * A minimal `terminal/*` implementation for the test client: runs the command with child_process and keeps
 * its output (no shell, no byte limit beyond what the agent asked for).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { CreateTerminalRequest, CreateTerminalResponse, TerminalOutputResponse, WaitForTerminalExitResponse } from '@agentclientprotocol/sdk/unstable';

interface TestTerminal {
  readonly child: ChildProcess;
  readonly limit: number | undefined;
  output: string;
  truncated: boolean;
  readonly exit: Promise<WaitForTerminalExitResponse>;
  exitStatus: WaitForTerminalExitResponse | undefined;
}

/** Terminals created by the agent through the test client. */
export class TestTerminals {
  private readonly terminals = new Map<string, TestTerminal>();
  private next = 1;
  /** Every terminal/create request received, in order. */
  readonly created: CreateTerminalRequest[] = [];

  create(request: CreateTerminalRequest): CreateTerminalResponse {
    this.created.push(request);
    const child = spawn(request.command, request.args ?? [], { cwd: request.cwd ?? undefined, stdio: ['ignore', 'pipe', 'pipe'] });
    const terminal: TestTerminal = {
      child,
      limit: request.outputByteLimit ?? undefined,
      output: '',
      truncated: false,
      exitStatus: undefined,
      exit: new Promise((resolve) => {
        child.once('error', () => resolve({ exitCode: 127, signal: null }));
        child.once('close', (code, signal) => resolve({ exitCode: code, signal }));
      }),
    };
    void terminal.exit.then((status) => (terminal.exitStatus = status));
    const append = (chunk: Buffer): void => {
      terminal.output += chunk.toString('utf8');
      if (terminal.limit !== undefined && Buffer.byteLength(terminal.output) > terminal.limit) {
        terminal.output = terminal.output.slice(-terminal.limit);
        terminal.truncated = true;
      }
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const terminalId = `term-${this.next++}`;
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  output(terminalId: string): TerminalOutputResponse {
    const terminal = this.get(terminalId);
    return { output: terminal.output, truncated: terminal.truncated, ...(terminal.exitStatus ? { exitStatus: terminal.exitStatus } : {}) };
  }

  waitForExit(terminalId: string): Promise<WaitForTerminalExitResponse> {
    return this.get(terminalId).exit;
  }

  kill(terminalId: string): Record<string, never> {
    this.get(terminalId).child.kill('SIGKILL');
    return {};
  }

  release(terminalId: string): Record<string, never> {
    this.get(terminalId).child.kill('SIGKILL');
    this.terminals.delete(terminalId);
    return {};
  }

  /** Kills every terminal still open. */
  releaseAll(): void {
    for (const id of [...this.terminals.keys()]) {
      this.release(id);
    }
  }

  private get(terminalId: string): TestTerminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) {
      throw new Error(`unknown terminal ${terminalId}`);
    }
    return terminal;
  }
}
