import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { cleanup, rpcError, startAgent, tempDir } from './harness';

function chunks(updates: SessionUpdate[], kind: 'agent_message_chunk' | 'agent_thought_chunk'): Array<{ text: string; messageId: string }> {
  return updates.flatMap((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? [{ text: u.content.text, messageId: u.messageId ?? '' }] : []));
}

describe('reference agent: scripted turns', () => {
  afterEach(cleanup);

  it('echoes a prompt without keywords in several chunks of one message, titles the session', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    const text = 'Hello there, this is a fairly long prompt that needs a shortened title';
    assert.equal(await agent.prompt(sessionId, text), 'end_turn');
    const message = chunks(agent.updatesFor(sessionId), 'agent_message_chunk');
    assert.ok(message.length > 3);
    assert.equal(new Set(message.map((c) => c.messageId)).size, 1);
    assert.equal(message.map((c) => c.text).join(''), `Echo: ${text}`);
    const info = agent.updatesFor(sessionId).find((u) => u.sessionUpdate === 'session_info_update');
    assert.ok(info && info.sessionUpdate === 'session_info_update');
    assert.equal(info.title, 'Hello there, this is a fairly long promp…');
    assert.ok(info.updatedAt && !Number.isNaN(Date.parse(info.updatedAt)));
    // The user's own message is stored for replay but not echoed live.
    assert.ok(!agent.updatesFor(sessionId).some((u) => u.sessionUpdate === 'user_message_chunk'));
  });

  it('names attachments in the echo', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    await agent.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'look' },
        { type: 'resource_link', name: 'a.txt', uri: 'file:///a.txt' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
    });
    assert.match(agent.agentText(sessionId), /Attachments: resource_link file:\/\/\/a\.txt, image \(image\/png\)/);
  });

  it('stream: 50 markdown chunks; think: thoughts first; several keywords run in order', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    await agent.prompt(sessionId, 'Stream and THINK, then a plan');
    const updates = agent.updatesFor(sessionId).filter((u) => u.sessionUpdate !== 'available_commands_update' && u.sessionUpdate !== 'session_info_update');
    const kinds = updates.map((u) => u.sessionUpdate);
    assert.equal(kinds[0], 'agent_thought_chunk');
    const firstMessage = kinds.indexOf('agent_message_chunk');
    assert.ok(kinds.slice(0, firstMessage).every((k) => k === 'agent_thought_chunk'));
    const streamed = chunks(updates, 'agent_message_chunk');
    assert.equal(streamed.length, 50);
    assert.match(streamed.map((c) => c.text).join(''), /^# Streaming test[\s\S]*```ts\nconst streamed = true;\n```\n$/);
    const plans = updates.filter((u) => u.sessionUpdate === 'plan');
    assert.deepEqual(
      plans.map((p) => (p.sessionUpdate === 'plan' ? p.entries.map((e) => e.status) : [])),
      [
        ['in_progress', 'pending', 'pending'],
        ['completed', 'in_progress', 'pending'],
        ['completed', 'completed', 'completed'],
      ],
    );
    assert.ok(kinds.lastIndexOf('agent_message_chunk') < kinds.indexOf('plan'), 'plan runs after stream');
  });

  it('diff: an edit tool call on <cwd>/hello.txt going pending → in_progress → completed', async () => {
    const agent = await startAgent();
    const cwd = tempDir();
    const sessionId = await agent.newSession(cwd);
    await agent.prompt(sessionId, 'show me a diff');
    const tool = agent.updatesFor(sessionId).filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
    assert.deepEqual(
      tool.map((u) => (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update' ? u.status : null)),
      ['pending', 'in_progress', 'completed'],
    );
    const call = tool[0];
    assert.ok(call.sessionUpdate === 'tool_call');
    assert.equal(call.kind, 'edit');
    assert.deepEqual(call.locations, [{ path: path.join(cwd, 'hello.txt'), line: 1 }]);
    assert.deepEqual(call.content, [{ type: 'diff', path: path.join(cwd, 'hello.txt'), oldText: 'Hello, world!\n', newText: 'Hello, ACP!\n' }]);
    // It is a sample: nothing is written, and it never claims an edit of a file that is not there.
    assert.equal(call.title, 'Sample edit of hello.txt (not written)');
    assert.equal(fs.existsSync(path.join(cwd, 'hello.txt')), false, 'nothing written');
    const said = agent.agentText(sessionId);
    assert.doesNotMatch(said, /Edited hello\.txt/, said);
    assert.match(said, /sample .*hello\.txt.*nothing was written.*does not exist/i);
  });

  it('usage and title keywords', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    await agent.prompt(sessionId, 'usage');
    await agent.prompt(sessionId, '/title  My renamed session ');
    const usage = agent.updatesFor(sessionId).find((u) => u.sessionUpdate === 'usage_update');
    assert.ok(usage && usage.sessionUpdate === 'usage_update' && usage.used > 0 && usage.size === 200_000 && usage.cost?.currency === 'USD');
    const titles = agent.updatesFor(sessionId).flatMap((u) => (u.sessionUpdate === 'session_info_update' && u.title ? [u.title] : []));
    assert.deepEqual(titles, ['usage', 'My renamed session']);
  });

  it('read: asks the client (with line and limit) and reports the first line, length or the error', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'notes.txt');
    fs.writeFileSync(file, 'first line\nsecond line\n');
    const agent = await startAgent();
    const sessionId = await agent.newSession(dir);
    await agent.prompt(sessionId, `read ${file}`);
    assert.match(agent.agentText(sessionId), /Read .*notes\.txt: 23 characters, 2 lines\. First line: "first line"/);
    await agent.prompt(sessionId, `please read ${path.join(dir, 'missing.txt')} line 2 limit 5`);
    assert.match(agent.agentText(sessionId), /Could not read .*missing\.txt: Resource not found: .*missing\.txt \(code -32002\)/);
    const calls = agent.received
      .map((line) => JSON.parse(line) as { method?: string; params?: { line?: number; limit?: number } })
      .filter((m) => m.method === 'fs/read_text_file');
    assert.deepEqual(
      calls.map((c) => [c.params?.line, c.params?.limit]),
      [
        [undefined, undefined],
        [2, 5],
      ],
    );
  });

  it('read/write/terminal say so when the client lacks the capability', async () => {
    const agent = await startAgent({ clientCapabilities: {} });
    const sessionId = await agent.newSession(tempDir());
    await agent.prompt(sessionId, 'read /etc/hostname');
    await agent.prompt(sessionId, 'write /tmp/x.txt hello');
    await agent.prompt(sessionId, 'terminal echo hi');
    const text = agent.agentText(sessionId);
    assert.match(text, /did not advertise fs\.readTextFile/);
    assert.match(text, /did not advertise fs\.writeTextFile/);
    assert.match(text, /did not advertise terminal support/);
    assert.ok(!agent.received.some((line) => /"method":"(fs|terminal)\//.test(line)));
  });

  it('write: sends fs/write_text_file with the rest of the line', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'out.txt');
    const agent = await startAgent();
    const sessionId = await agent.newSession(dir);
    await agent.prompt(sessionId, `write ${file} stream and diff are just words here`);
    assert.equal(fs.readFileSync(file, 'utf8'), 'stream and diff are just words here');
    assert.match(agent.agentText(sessionId), /^Wrote 35 characters to /);
  });

  it('*-direct: changes files itself, relative to the cwd, one tool call each, the client never asked', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'old.txt'), 'old\n');
    fs.writeFileSync(path.join(dir, 'log.txt'), 'first');
    const agent = await startAgent();
    const sessionId = await agent.newSession(dir);
    const prompt = [
      'write-direct sub/new.txt hello plan',
      'append-direct log.txt second',
      'append-direct log.txt third',
      'prepend-direct log.txt zeroth',
      `rename-direct old.txt ${path.join(dir, 'moved', 'old.txt')}`,
      'delete-direct sub/new.txt',
      'delete-direct missing.txt',
    ].join('\n');
    assert.equal(await agent.prompt(sessionId, prompt), 'end_turn');
    assert.equal(fs.readFileSync(path.join(dir, 'log.txt'), 'utf8'), 'zeroth\nfirst\nsecond\nthird\n');
    assert.equal(fs.readFileSync(path.join(dir, 'moved', 'old.txt'), 'utf8'), 'old\n');
    assert.ok(!fs.existsSync(path.join(dir, 'old.txt')));
    assert.ok(fs.existsSync(path.join(dir, 'sub')), 'the parent folder was created');
    assert.ok(!fs.existsSync(path.join(dir, 'sub', 'new.txt')), 'written, then deleted');
    assert.ok(!agent.received.some((line) => /"method":"fs\//.test(line)), 'nothing asked of the client');

    const updates = agent.updatesFor(sessionId);
    const calls = updates.flatMap((u) => (u.sessionUpdate === 'tool_call' ? [u] : []));
    assert.deepEqual(
      calls.map((c) => [c.kind, c.title, c.status, c.locations?.map((l) => l.path)]),
      [
        ['edit', `Write ${path.join(dir, 'sub', 'new.txt')}`, 'in_progress', [path.join(dir, 'sub', 'new.txt')]],
        ['edit', `Append to ${path.join(dir, 'log.txt')}`, 'in_progress', [path.join(dir, 'log.txt')]],
        ['edit', `Append to ${path.join(dir, 'log.txt')}`, 'in_progress', [path.join(dir, 'log.txt')]],
        ['edit', `Prepend to ${path.join(dir, 'log.txt')}`, 'in_progress', [path.join(dir, 'log.txt')]],
        [
          'move',
          `Rename ${path.join(dir, 'old.txt')} to ${path.join(dir, 'moved', 'old.txt')}`,
          'in_progress',
          [path.join(dir, 'old.txt'), path.join(dir, 'moved', 'old.txt')],
        ],
        ['delete', `Delete ${path.join(dir, 'sub', 'new.txt')}`, 'in_progress', [path.join(dir, 'sub', 'new.txt')]],
        ['delete', `Delete ${path.join(dir, 'missing.txt')}`, 'in_progress', [path.join(dir, 'missing.txt')]],
      ],
    );
    assert.deepEqual(calls[0].content, [{ type: 'content', content: { type: 'text', text: 'Writing 10 characters' } }], 'shaped like write: no diff');
    const ends = updates.flatMap((u) => (u.sessionUpdate === 'tool_call_update' && u.status ? [[u.toolCallId, u.status]] : []));
    assert.deepEqual(
      ends.map(([, status]) => status),
      ['completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'failed'],
    );
    assert.deepEqual(
      ends.map(([id]) => id),
      calls.map((c) => c.toolCallId),
    );
    const text = agent.agentText(sessionId);
    assert.match(text, /Wrote 10 characters to .*new\.txt directly\./);
    assert.match(text, /Could not delete .*missing\.txt: ENOENT/);
    assert.ok(!updates.some((u) => u.sessionUpdate === 'plan'), 'a keyword in the text is text');
  });

  it('shell-direct: runs a shell command itself in the cwd (no terminal/create); a failing one fails its call with stderr', async () => {
    const dir = tempDir();
    const agent = await startAgent();
    const sessionId = await agent.newSession(dir);
    const prompt = ['shell-direct echo made by sh > made.txt && echo plan >> made.txt', 'shell-direct echo oops >&2; exit 3'].join('\n');
    assert.equal(await agent.prompt(sessionId, prompt), 'end_turn');
    assert.equal(fs.readFileSync(path.join(dir, 'made.txt'), 'utf8'), 'made by sh\nplan\n');
    assert.ok(!agent.received.some((line) => /"method":"(fs|terminal)\//.test(line)), 'nothing asked of the client');
    const updates = agent.updatesFor(sessionId);
    const calls = updates.flatMap((u) => (u.sessionUpdate === 'tool_call' ? [[u.kind, u.title]] : []));
    assert.deepEqual(calls, [
      ['execute', 'Run echo made by sh > made.txt && echo plan >> made.txt'],
      ['execute', 'Run echo oops >&2; exit 3'],
    ]);
    const ends = updates.flatMap((u) => (u.sessionUpdate === 'tool_call_update' && u.status ? [u.status] : []));
    assert.deepEqual(ends, ['completed', 'failed']);
    assert.match(agent.agentText(sessionId), /Could not run echo oops >&2; exit 3: exit code 3: oops/);
    assert.ok(!updates.some((u) => u.sessionUpdate === 'plan'), 'a keyword in the command is the command');
    // Reported as pi-acp and codex-acp report their own shells: a terminal in the tool call, its state in `_meta`.
    const metas = updates.flatMap((u) => (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update' ? [u._meta ?? {}] : []));
    assert.deepEqual(metas.at(-1), {
      terminal_output: { terminal_id: 'call_2', data: 'oops\n' },
      terminal_exit: { terminal_id: 'call_2', exit_code: 3, signal: null },
    });
    const first = updates.find((u) => u.sessionUpdate === 'tool_call');
    assert.deepEqual(first?.sessionUpdate === 'tool_call' && [first.content, first._meta], [
      [{ type: 'terminal', terminalId: 'call_1' }],
      { terminal_info: { terminal_id: 'call_1', cwd: dir } },
    ]);
  });

  it('terminal: create in the session cwd with a 4096-byte limit, wait, read output, release', async () => {
    const dir = tempDir();
    const agent = await startAgent();
    const sessionId = await agent.newSession(dir);
    await agent.prompt(sessionId, `terminal ${process.execPath} -e "console.log('from terminal'); process.exit(3)"`);
    assert.deepEqual(
      agent.terminals.created.map((c) => [c.cwd, c.outputByteLimit, c.args?.length]),
      [[dir, 4096, 2]],
    );
    assert.match(agent.agentText(sessionId), /finished with exit code 3\. Output: \d+ characters, first line "from terminal"/);
    const methods = agent.received.map((line) => (JSON.parse(line) as { method?: string }).method).filter((m) => m?.startsWith('terminal/'));
    assert.deepEqual(methods, ['terminal/create', 'terminal/wait_for_exit', 'terminal/output', 'terminal/release']);
    const call = agent.updatesFor(sessionId).find((u) => u.sessionUpdate === 'tool_call');
    assert.ok(call && call.sessionUpdate === 'tool_call');
    assert.deepEqual(call.content, [{ type: 'terminal', terminalId: 'term-1' }]);
  });

  it('run-in: a terminal in the folder given, without a tool call; the answer says how it ended', async () => {
    const dir = tempDir();
    const other = tempDir();
    const agent = await startAgent();
    const sessionId = await agent.newSession(dir);
    await agent.prompt(sessionId, `run-in ${other} ${process.execPath} -e "console.log('bare'); process.exit(2)"`);
    assert.deepEqual(
      agent.terminals.created.map((c) => c.cwd),
      [other],
    );
    assert.ok(!agent.updatesFor(sessionId).some((u) => u.sessionUpdate === 'tool_call'), 'no tool call shows the terminal');
    assert.match(agent.agentText(sessionId), /without a tool call: exit code 2, first line "bare"/);
  });

  it('hang and slow turns are cancelled by session/cancel, which cuts the pause between chunks short', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    for (const prompt of ['hang', 'slow stream']) {
      const before = agent.updatesFor(sessionId).length;
      const chunks = (): number =>
        agent
          .updatesFor(sessionId)
          .slice(before)
          .filter((u) => u.sessionUpdate === 'agent_message_chunk').length;
      const turn = agent.prompt(sessionId, prompt);
      await agent.waitFor(() => chunks() > 0, `a chunk of ${prompt}`);
      await agent.agent.notify('session/cancel', { sessionId });
      // A hang turn never ends by itself; a slow one would stream several more chunks, 2 s apart.
      assert.equal(await turn, 'cancelled', prompt);
      assert.equal(chunks(), 1, `${prompt}: nothing streamed after the cancel`);
    }
  });

  it('slow waits about 2 s between chunks', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    const started = Date.now();
    await agent.prompt(sessionId, 'slow down please');
    assert.equal(agent.agentText(sessionId), 'Echo: slow down please');
    assert.ok(Date.now() - started >= 1900);
  });

  it('rejects a second prompt while a turn runs, and prompts to unknown sessions', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    const turn = agent.prompt(sessionId, 'hang');
    const error = await rpcError(agent.prompt(sessionId, 'again'));
    assert.equal(error.code, -32600);
    await agent.agent.notify('session/cancel', { sessionId });
    assert.equal(await turn, 'cancelled');
    assert.equal((await rpcError(agent.prompt('ref_unknown', 'hi'))).code, -32002);
  });

  it('crash: two chunks, then exit code 42 in the middle of a tool call', async () => {
    const agent = await startAgent();
    const sessionId = await agent.newSession(tempDir());
    await assert.rejects(agent.prompt(sessionId, 'crash'));
    assert.equal((await agent.exited).code, 42);
    assert.equal(chunks(agent.updatesFor(sessionId), 'agent_message_chunk').length, 2);
    const tools = agent.updatesFor(sessionId).filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
    assert.deepEqual(
      tools.map((u) => [u.sessionUpdate, u.status]),
      [['tool_call', 'in_progress']],
      'the tool call never finishes',
    );
  });
});
