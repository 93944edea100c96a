import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanup, startAgent, tempDir } from './harness';

describe('reference agent: --record', () => {
  afterEach(cleanup);

  it('appends every line received on stdin, exactly as sent', async () => {
    const file = path.join(tempDir(), 'nested', 'received.jsonl');
    const agent = await startAgent({ args: ['--record', file] });
    const sessionId = await agent.newSession(tempDir());
    await agent.prompt(sessionId, 'permission ünïcødé ✓');
    agent.closeStdin();
    assert.equal((await agent.exited).code, 0);
    const recorded = fs.readFileSync(file, 'utf8');
    assert.equal(recorded, agent.sent.map((line) => line + '\n').join(''));
    const methods = recorded
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { method?: string }).method ?? 'response');
    assert.deepEqual(methods, ['initialize', 'session/new', 'session/prompt', 'response']);
  });

  it('reads ACP_REF_RECORD and appends across runs', async () => {
    const file = path.join(tempDir(), 'received.jsonl');
    for (let run = 0; run < 2; run++) {
      const agent = await startAgent({ env: { ACP_REF_RECORD: file } });
      agent.closeStdin();
      await agent.exited;
    }
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    assert.equal(lines.length, 2);
    assert.ok(lines.every((line) => (JSON.parse(line) as { method?: string }).method === 'initialize'));
  });
});
