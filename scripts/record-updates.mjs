// @ts-check
// Records the session/update notifications an agent streams for a prompt, as JSON lines, for the thread
// reducer's tests (test/fixtures/updates/). Uses the extension's own client code (built in out/).
//
//   node scripts/record-updates.mjs <output.jsonl> <prompt> [-- agent command and args]
// Without an agent command it records the bundled reference agent.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { AgentProcess } = require('../out/src/process/agentProcess.js');
const acp = require('../out/src/acp/schema/index.js');

const [output, prompt, separator, ...agentCommand] = process.argv.slice(2);
if (!output || !prompt || (separator !== undefined && separator !== '--')) {
  console.error('usage: record-updates.mjs <output.jsonl> <prompt> [-- command args…]');
  process.exit(2);
}
const cwd = mkdtempSync(path.join(tmpdir(), 'acp-record-'));
const [command, ...args] = agentCommand.length > 0 ? agentCommand : [process.execPath, path.resolve('dist/reference-agent.js')];
const agent = new AgentProcess({
  command: { name: 'recorded', command, args, env: {} },
  cwd,
  clientInfo: { name: 'acp-workspace-recorder', version: '0' },
  registerHandlers: (connection) => {
    connection.onRequest(acp.RequestPermissionMethod, (params) => {
      const option = params.options.find((o) => o.kind === 'allow_once') ?? params.options[0];
      return { outcome: option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' } };
    });
  },
});
const lines = [];
try {
  const connection = await agent.start();
  connection.onNotification(acp.SessionUpdateNotification, (n) => lines.push(JSON.stringify(n.update)));
  const { sessionId } = await connection.newSession({ cwd, mcpServers: [] });
  const result = await connection.prompt({ sessionId, prompt: [{ type: 'text', text: prompt }] });
  lines.push(JSON.stringify({ $stopReason: result.stopReason }));
  writeFileSync(output, lines.join('\n') + '\n');
  console.log(`${lines.length} lines written to ${output}`);
} finally {
  await agent.dispose();
  rmSync(cwd, { recursive: true, force: true });
}
