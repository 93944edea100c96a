/**
 * The same chat over ACP v1 and ACP v2, end to end through the product's own parts (AgentProcess with
 * `protocol`, SessionRouter, Chats, SessionController, Thread) and the reference agent, which speaks both: what
 * the user sees must not depend on the version. v2 differs on the wire (the prompt's echo, state updates,
 * upserts by id, the turn ended by `state_update` idle) and nowhere above `acp/`.
 */
import * as assert from 'node:assert/strict';
import type { ProtocolChoice } from '../../../src/acp/agentConnections';
import { silentLogger } from '../../../src/common/logger';
import { AgentProcess } from '../../../src/process/agentProcess';
import { rootSetFromPaths } from '../../../src/roots/rootSet';
import { Chats } from '../../../src/sessions/chats/chats';
import { ActiveSessions } from '../../../src/sessions/routing/activeSessions';
import { startSession } from '../../../src/sessions/routing/sessionLifecycle';
import { SessionRouter } from '../../../src/sessions/routing/sessionRouter';
import type { ViewEntry } from '../../../src/shared/chatModel';
import { UPSERT_FINAL } from '../../fixtures/referenceAgent/v2/turn';
import { referenceAgentCommand, tempDir } from '../../helpers/referenceAgent';

/** What the user sees of a transcript: each entry's kind and its words. */
function seen(entries: readonly ViewEntry[]): string[] {
  return entries.map((entry) => {
    switch (entry.kind) {
      case 'user':
        return `user: ${entry.blocks.map((b) => ('text' in b ? b.text : b.type)).join('')}`;
      case 'agent':
        return `agent: ${entry.blocks.map((b) => ('text' in b ? b.text : b.type)).join('')}`;
      case 'thought':
        return `thought: ${entry.text}`;
      case 'tool':
        return `tool: ${entry.title} (${entry.status})`;
      case 'turnEnd':
        return `turnEnd: ${entry.stopReason}`;
      default:
        return entry.kind;
    }
  });
}

describe('one chat, either ACP version (reference agent, the product’s own parts)', function () {
  this.timeout(60_000);
  const runs: Array<{ agent: AgentProcess; chats: Chats; cleanup: () => void }> = [];
  afterEach(async () => {
    for (const run of runs.splice(0)) {
      run.chats.dispose();
      await run.agent.stop();
      run.cleanup();
    }
  });

  async function chatOver(protocol: ProtocolChoice) {
    const scratch = tempDir('acp-v2-chat-');
    const sessions = new ActiveSessions();
    const router = new SessionRouter({ sessions, logger: silentLogger });
    const agent = new AgentProcess({
      command: referenceAgentCommand(['--store', scratch.dir]),
      cwd: scratch.dir,
      logger: silentLogger,
      clientInfo: { name: 'acp-workspace-test', version: '0' },
      registerHandlers: (connection, confinement) => router.connect(connection, confinement),
      restartPolicy: false,
      protocol,
    });
    const chats = new Chats({ router, sessions, logger: silentLogger });
    runs.push({ agent, chats, cleanup: scratch.cleanup });
    // Like a person clicking, once the request is shown (the controller registers it right after the event).
    chats.onDidRequestPermission(({ chat, entryId }) => setImmediate(() => chat.choosePermissionKind(entryId, 'allow_once')));
    const connection = await agent.start();
    const chat = chats.open(await startSession(connection, rootSetFromPaths(scratch.dir, [])));
    return { connection, chat };
  }

  async function turn(chat: Awaited<ReturnType<typeof chatOver>>['chat'], text: string): Promise<string[]> {
    const before = chat.thread.snapshot().entries.length;
    await chat.prompt([{ type: 'text', text }], [{ type: 'text', text }]);
    return seen(chat.thread.snapshot().entries.slice(before));
  }

  it('a turn with a permission reads the same over v1 and v2: the prompt once, the tool call allowed, the answer, the end', async () => {
    const v1 = await chatOver('v1');
    const v2 = await chatOver('auto');
    assert.equal(v1.connection.caps.protocolVersion, 1);
    assert.equal(v2.connection.caps.protocolVersion, 2);
    const overV1 = await turn(v1.chat, 'permission');
    const overV2 = await turn(v2.chat, 'permission');
    assert.equal(overV2.filter((line) => line.startsWith('user:')).length, 1, `the prompt is shown once: ${overV2.join(' | ')}`);
    assert.deepEqual(overV2, overV1);
    assert.equal(overV2.at(-1), 'turnEnd: end_turn');
    assert.equal(v2.chat.thread.session.status, 'idle');
  });

  it('v2: a whole agent_message replaces what was streamed under its id', async () => {
    const { chat } = await chatOver('v2');
    const lines = await turn(chat, 'upsert');
    assert.ok(lines.includes(`agent: ${UPSERT_FINAL}`), lines.join(' | '));
    assert.equal(lines.filter((line) => line.startsWith('agent:')).length, 1, lines.join(' | '));
  });
});
