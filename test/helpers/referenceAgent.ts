/** Where the bundled reference agent is, and how to describe it as an agent command. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentCommand } from '../../src/agents/agentConfig';

/** `dist/reference-agent.js`, built by `node esbuild.mjs`. */
export const REFERENCE_AGENT_BUNDLE = path.resolve(__dirname, '..', '..', '..', 'dist', 'reference-agent.js');

export function referenceAgentCommand(args: readonly string[] = [], env: Record<string, string> = {}, name = 'Reference Agent'): AgentCommand {
  if (!fs.existsSync(REFERENCE_AGENT_BUNDLE)) {
    throw new Error(`${REFERENCE_AGENT_BUNDLE} is missing: run "node esbuild.mjs" (npm test does) first.`);
  }
  return { name, command: process.execPath, args: [REFERENCE_AGENT_BUNDLE, ...args], env };
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'acp-ws-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** True while a process with this pid exists (signal 0 probes without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls `predicate` until it holds or `timeoutMs` passes. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
