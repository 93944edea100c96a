/**
 * claude-agent-acp (Claude Code over ACP) confined by bubblewrap the way the extension starts a confined agent
 * (`AgentProcessOptions.confinement`), run offline against the scripted model server: it may write only in the
 * session's folders and its own state directory (its HOME here); its Write tool and its shell outside them fail
 * and nothing appears there, the same inside works, and its own session storage keeps working (list, load and
 * resume after a restart under confinement). Linux only (bubblewrap); the test setup installs it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AcpConnection } from '../../src/acp/connection';
import { findConfiner } from '../../src/process/confinement/find';
import type { ConfinementPolicy } from '../../src/process/confinement/types';
import { rootSetFromPaths } from '../../src/roots/rootSet';
import type { AgentSession } from '../../src/sessions/agentSession';
import type { SessionController } from '../../src/sessions/sessionController';
import { reopenSession, startSession } from '../../src/sessions/sessionLifecycle';
import type { ViewEntry } from '../../src/shared/chatModel';
import { claudeAgentAcp, makeScratch, type InteropAgent, type Scratch } from './agents';
import { InteropClient, within } from './harness';
import { ModelServer } from './modelServer';

const TURN_MS = 60_000;

describe('interop: claude-agent-acp confined by bubblewrap', function () {
  this.timeout(90_000);
  let scratch: Scratch;
  let server: ModelServer;
  let agent: InteropAgent;
  let client: InteropClient;
  let connection: AcpConnection;
  let session: AgentSession;
  let chat: SessionController;
  let policy: ConfinementPolicy;

  before(async () => {
    scratch = makeScratch('acp-interop-confined-');
    server = await ModelServer.start();
    agent = claudeAgentAcp(scratch.home, server.url);
    // The folders of the session and Claude Code's state (~/.claude, ~/.claude.json: its HOME here).
    policy = { mode: 'writes', writable: [scratch.app, scratch.lib, scratch.docs, scratch.home], readable: [] };
    client = new InteropClient({ agent, cwd: scratch.app, confinement: async () => ({ confiner: await findConfiner(), policy }) });
    client.permissionKind = () => 'allow_once';
  });
  after(async () => {
    await client?.dispose();
    await server?.close();
    scratch?.cleanup();
  });
  afterEach(function () {
    const problems = server.problems;
    if (problems.length > 0 && this.currentTest?.state === 'failed') console.log(`      model server problems:\n        ${problems.join('\n        ')}`);
  });

  async function turn(text: string): Promise<ViewEntry[]> {
    const before = chat.thread.length;
    await within(TURN_MS, `the turn "${text}"`, chat.prompt([{ type: 'text', text }], [{ type: 'text', text }]));
    const entries = chat.thread.snapshot().entries.slice(before);
    assert.equal(entries.at(-1)?.kind, 'turnEnd', `the turn "${text}" ended`);
    return entries;
  }

  /** What the model was told the tool did (the tool result of the last turn with this prompt). */
  function toolResult(prompt: string): string {
    const request = server.requests.filter((r) => r.prompt === prompt && /:result$/.test(r.scenario ?? '')).at(-1);
    assert.ok(request, `the model got a tool result for "${prompt}"`);
    const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
    const last = messages.filter((m) => m.role === 'user').at(-1);
    const results = Array.isArray(last?.content) ? (last.content as Array<{ type: string }>).filter((b) => b.type === 'tool_result') : [];
    return JSON.stringify(results);
  }

  it('starts confined, and a session with app, lib and docs works', async () => {
    connection = await within(60_000, 'initialize', client.start());
    assert.deepEqual(client.process.confinement?.confined && client.process.confinement.mechanism, 'bubblewrap');
    session = await within(60_000, 'session/new', startSession(connection, rootSetFromPaths(scratch.app, [scratch.lib, scratch.docs])));
    chat = client.open(session);
  });

  it('its Write tool writes inside the folders', async () => {
    const file = path.join(scratch.lib, 'inside.txt');
    await turn(`write ${file} written inside`);
    assert.equal(fs.readFileSync(file, 'utf8'), 'written inside\n');
  });

  it('its Write tool outside the folders fails even when allowed: nothing appears there', async () => {
    const file = path.join(scratch.outside, 'escaped.txt');
    const prompt = `write ${file} must not exist`;
    await turn(prompt);
    assert.equal(fs.existsSync(file), false, 'nothing was written outside');
    assert.match(toolResult(prompt), /EROFS|read-only file system/i, 'the model was told why');
  });

  it('its shell outside the folders fails: nothing appears there', async () => {
    const file = path.join(scratch.outside, 'shell-escaped.txt');
    const prompt = `bash touch ${file}`;
    await turn(prompt);
    assert.equal(fs.existsSync(file), false, 'nothing was created outside');
    assert.match(toolResult(prompt), /Read-only file system/i);
  });

  it('its own session storage keeps working under confinement: list, load and resume after a restart', async () => {
    const id = session.sessionId;
    connection = await within(60_000, 'restart', client.restart());
    assert.equal(client.process.confinement?.confined, true, 'still confined after the restart');
    for (let i = 0; ; i++) {
      const listed = await within(30_000, 'session/list', connection.listSessions({ cwd: scratch.app }));
      if (listed.sessions.some((s) => s.sessionId === id)) break;
      assert.ok(i < 100, 'the session is listed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    chat = client.open(await within(60_000, 'session/load', reopenSession(connection, id, session.rootSet, { mode: 'load' })));
    connection = await within(60_000, 'restart', client.restart());
    session = await within(60_000, 'session/resume', reopenSession(connection, id, session.rootSet, { mode: 'resume' }));
    chat = client.open(session);
    const entries = await turn('history');
    const answer = entries.filter((e) => e.kind === 'agent').at(-1);
    assert.match(answer?.kind === 'agent' ? answer.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '', /written inside/, 'the resumed conversation remembers the earlier turns');
  });
});
