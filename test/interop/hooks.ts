/**
 * Root hooks of the interop tier (loaded with mocha's --require, after test/unit/hooks.js, which fails a
 * test during which the client sent a message that does not conform to the ACP JSON Schema).
 *
 * Here: no agent process (nor anything it started) may outlive the run. After all tests, any process
 * carrying this run's marker fails the run and is killed; if the run is interrupted, every agent's
 * process group is killed on the way out.
 */
import { leftoverProcesses } from './agents';
import { startedAgents } from './harness';

function killGroups(): void {
  for (const agent of startedAgents) {
    const pid = agent.pid;
    if (pid === undefined) continue;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

process.once('exit', killGroups);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killGroups();
    process.exit(130);
  });
}

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await Promise.all([...startedAgents].map((agent) => agent.dispose()));
    // A process that was just killed may take a moment to disappear from /proc.
    let left = leftoverProcesses();
    for (let i = 0; i < 20 && left.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = leftoverProcesses();
    }
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    console.log(`\n  processes: ${left.length} left behind by the agents`);
    if (left.length > 0) {
      throw new Error(
        `Processes started by the agents were still running after the tests (killed now):\n  ${left.map((p) => `${p.pid} ${p.command}`).join('\n  ')}`,
      );
    }
  },
};
