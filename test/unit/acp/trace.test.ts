import * as assert from 'node:assert/strict';
import type { Message } from 'vscode-jsonrpc/node';
import { traceTap, type TraceLevel } from '../../../src/acp/trace';
import { recordingLogger } from '../../helpers/memoryPeer';

const newSession = {
  jsonrpc: '2.0',
  id: 3,
  method: 'session/new',
  params: {
    cwd: '/w/app',
    mcpServers: [
      {
        name: 'github',
        command: 'gh-mcp',
        args: [],
        env: [{ name: 'GITHUB_TOKEN', value: 'ghp_secret' }],
        headers: [{ name: 'Authorization', value: 'Bearer secret' }],
      },
    ],
  },
} as unknown as Message;

function traced(level: TraceLevel, message: Message, direction: 'send' | 'receive' = 'send') {
  const logger = recordingLogger();
  traceTap('Claude Code', () => level, logger)(direction, message);
  return logger.lines;
}

describe('protocol trace (acpWorkspace.trace)', () => {
  it('"messages" shows each message with its method and params at the default log level, secrets redacted', () => {
    const lines = traced('messages', newSession);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 'info', 'visible without raising the log level to Trace');
    assert.match(lines[0]!.message, /^→ Claude Code: request session\/new #3 \{"cwd":"\/w\/app","mcpServers":\[/);
    assert.doesNotMatch(lines[0]!.message, /ghp_secret|Bearer secret/);
    assert.match(lines[0]!.message, /"GITHUB_TOKEN","value":"«redacted»"/);
  });

  it('"verbose" shows the whole message, secrets redacted; "off" shows nothing', () => {
    const [line] = traced('verbose', newSession);
    assert.equal(line!.level, 'info');
    assert.match(line!.message, /"jsonrpc":"2.0"/);
    assert.doesNotMatch(line!.message, /ghp_secret|Bearer secret/);
    assert.deepEqual(traced('off', newSession), []);
  });

  it('survives what an agent sends: input nested deeper than JSON.stringify goes, and huge params, bounded', () => {
    const depth = 50_000;
    const deep = JSON.parse(`{"jsonrpc":"2.0","method":"session/update","params":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`) as Message;
    const [line] = traced('verbose', deep, 'receive');
    assert.match(line!.message, /^← Claude Code: notification session\/update/);
    const huge = { jsonrpc: '2.0', method: 'session/update', params: { text: 'x'.repeat(5_000_000) } } as unknown as Message;
    assert.ok(traced('messages', huge, 'receive')[0]!.message.length < 10_000);
  });
});
