import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../../../src/acp/connection';
import { rootSetFromPaths } from '../../../../src/roots/rootSet';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import { chooseReopenMethod } from '../../../../src/history/reopenPolicy';
import { reopenSession, rootParams, startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import { describeFolderChange, staleAfterFolderChange } from '../../../../src/sessions/routing/staleRoots';
import { FULL_AGENT_CAPABILITIES, connectToMemoryAgent, type MemoryAgent } from '../../../helpers/memoryPeer';

const clientInfo = { name: 'acp-workspace', version: '0.0.0-test' };
const three = rootSetFromPaths('/w/app', ['/w/lib', '/w/docs']);

describe('session lifecycle with roots', () => {
  let client: AcpConnection | undefined;
  let agent: MemoryAgent | undefined;
  afterEach(() => {
    client?.dispose();
    agent?.dispose();
  });

  async function ready(sessionCapabilities: Record<string, unknown>, loadSession = true) {
    ({ client, agent } = connectToMemoryAgent());
    agent.acceptInitialize({ agentCapabilities: { ...FULL_AGENT_CAPABILITIES, loadSession, sessionCapabilities } });
    agent.rpc.onRequest('session/new', () => ({ sessionId: 's1' }));
    agent.rpc.onRequest('session/resume', () => ({}));
    agent.rpc.onRequest('session/load', () => null);
    await client.initialize({ clientInfo });
    return { client: client!, agent: agent! };
  }

  it('sends the complete list when the agent supports additional directories (an empty list explicitly)', async () => {
    const { client, agent } = await ready({ additionalDirectories: {}, resume: {} });
    const session = await startSession(client, three);
    assert.equal(session.sessionId, 's1');
    assert.deepEqual(agent.sent('session/new')[0]!.params, { cwd: '/w/app', additionalDirectories: ['/w/lib', '/w/docs'], mcpServers: [] });
    await startSession(client, rootSetFromPaths('/w/app'));
    assert.deepEqual(agent.sent('session/new')[1]!.params, { cwd: '/w/app', additionalDirectories: [], mcpServers: [] });
  });

  it('never sends the field to an agent without the capability, and refuses a set it cannot take', async () => {
    const { client, agent } = await ready({});
    await startSession(client, rootSetFromPaths('/w/app'));
    assert.deepEqual(agent.sent('session/new')[0]!.params, { cwd: '/w/app', mcpServers: [] });
    assert.throws(() => rootParams(client, three), /can only see one folder, but app, lib and docs were chosen/);
  });

  it('reopens a chat with resume when advertised, else load, always with the complete list', async () => {
    const withResume = await ready({ additionalDirectories: {}, resume: {} });
    assert.deepEqual(chooseReopenMethod('recover', withResume.client.caps, 'Memory Agent'), { method: 'resume' });
    const session = await reopenSession(withResume.client, 'old', three, { mode: 'resume' });
    assert.deepEqual(session.rootSet, three);
    assert.deepEqual(withResume.agent.sent('session/resume')[0]!.params, {
      sessionId: 'old',
      cwd: '/w/app',
      additionalDirectories: ['/w/lib', '/w/docs'],
      mcpServers: [],
    });
    client!.dispose();
    agent!.dispose();
    const loadOnly = await ready({ additionalDirectories: {} });
    assert.deepEqual(chooseReopenMethod('recover', loadOnly.client.caps, 'Memory Agent'), { method: 'load' });
    await reopenSession(loadOnly.client, 'old', rootSetFromPaths('/w/app'), { mode: 'load' });
    assert.deepEqual(loadOnly.agent.sent('session/load')[0]!.params, { sessionId: 'old', cwd: '/w/app', additionalDirectories: [], mcpServers: [] });
  });

  it('says so when the agent can neither resume nor load, and refuses to send either', async () => {
    const { client, agent } = await ready({}, false);
    assert.deepEqual(chooseReopenMethod('recover', client.caps, 'Memory Agent'), { reason: 'Memory Agent can neither load nor resume sessions.' });
    await assert.rejects(reopenSession(client, 'old', rootSetFromPaths('/w/app'), { mode: 'resume' }), /does not support resuming/);
    await assert.rejects(reopenSession(client, 'old', rootSetFromPaths('/w/app'), { mode: 'load' }), /does not support reopening sessions with their history/);
    assert.equal(agent.sent('session/resume').length + agent.sent('session/load').length, 0);
  });

  it('keeps open sessions by agent and id, and drops them when their connection closes', async () => {
    const { client } = await ready({ additionalDirectories: {} });
    const sessions = new ActiveSessions();
    let changes = 0;
    sessions.onDidChange(() => changes++);
    const session = await startSession(client, three);
    sessions.add(session);
    assert.equal(sessions.find('Memory Agent', 's1'), session);
    assert.deepEqual(sessions.forAgent('Memory Agent'), [session]);
    session.noteRefusal({ operation: 'read', path: '/etc/passwd', message: 'outside' });
    client.dispose('Memory Agent exited.');
    assert.equal(sessions.find('Memory Agent', 's1'), undefined);
    assert.ok(session.isDisconnected);
    assert.equal(changes, 3);
  });
});

describe('stale roots after workspace folder changes', () => {
  const roots = (...names: string[]) => names.map((name, index) => ({ path: `/w/${name}`, name, index }));

  it('is stale when a folder is added that the session could get', () => {
    const effect = staleAfterFolderChange(three, roots('app', 'lib', 'docs'), roots('app', 'lib', 'docs', 'tools'), true);
    assert.equal(effect?.stale.reason, 'tools was added to the workspace. Reopen the session to give the agent the current folders.');
    assert.deepEqual(effect?.removed, []);
  });

  it('is not stale when a folder is added that its agent could not take (it takes one folder)', () => {
    const single = rootSetFromPaths('/w/app');
    assert.equal(staleAfterFolderChange(single, roots('app', 'docs'), roots('app', 'lib', 'docs'), false), undefined, 'lib re-added');
    assert.equal(staleAfterFolderChange(single, roots('app', 'lib', 'docs'), roots('app', 'docs'), false), undefined, 'lib removed: not one of its roots');
  });

  it('is stale when one of its roots is removed from the workspace', () => {
    const effect = staleAfterFolderChange(three, roots('app', 'lib', 'docs'), roots('app', 'docs'), true);
    assert.equal(effect?.stale.reason, 'lib was removed from it and can no longer be reached. Reopen the session to give the agent the current folders.');
    assert.deepEqual(effect?.removed, ['/w/lib']);
  });

  it('is not stale when an unrelated, unshared folder goes away, or nothing changed', () => {
    const twoRoots = rootSetFromPaths('/w/app', ['/w/lib']);
    assert.equal(staleAfterFolderChange(twoRoots, roots('app', 'lib', 'docs'), roots('app', 'lib'), true), undefined);
    assert.equal(staleAfterFolderChange(three, roots('app', 'lib', 'docs'), roots('app', 'lib', 'docs'), true), undefined);
    assert.equal(staleAfterFolderChange(twoRoots, roots('app', 'lib'), roots('app', 'lib', 'docs'), true)?.stale.reason.startsWith('docs was added'), true);
  });

  it('describes the workspace-level change for the prompt', () => {
    assert.equal(describeFolderChange(roots('app', 'lib'), roots('app', 'tools')), 'tools was added, lib was removed');
    assert.equal(describeFolderChange(roots('app'), roots('app', 'x', 'y')), 'x and y were added');
  });

  it('describes several changes at once', () => {
    const effect = staleAfterFolderChange(three, roots('app', 'lib', 'docs'), roots('app', 'x', 'y'), true);
    assert.equal(
      effect?.stale.reason,
      'x and y were added to the workspace, and lib and docs were removed from it and can no longer be reached. Reopen the session to give the agent the current folders.',
    );
  });
});
