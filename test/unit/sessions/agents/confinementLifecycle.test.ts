/**
 * A confined agent across the states of the window (issue 24, items 4–6): every launch, whatever started it,
 * covers the folders of the sessions it serves; a folder shared mid-session reaches the reopened session; a
 * folder taken back leaves the confinement at once. The real AgentConfinement, Reopener, Chats, FolderChanges
 * and FolderGrants, wired as `core.ts` wires them, over in-memory agents; each launch asks the confinement
 * for its policy as AgentProcess does.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AcpConnection } from '../../../../src/acp/connection';
import { silentLogger } from '../../../../src/common/logger';
import type { Confiner } from '../../../../src/process/confinement/types';
import { FolderGrants, type KeyValueStore } from '../../../../src/roots/folderGrants';
import { namedRoot, rootPaths, rootSetFromPaths } from '../../../../src/roots/rootSet';
import { candidateRoots } from '../../../../src/roots/workspaceRoots';
import { ActiveSessions } from '../../../../src/sessions/routing/activeSessions';
import { AgentConfinement } from '../../../../src/sessions/agents/agentConfinement';
import { Chats } from '../../../../src/sessions/chats/chats';
import { uncoveredFolders } from '../../../../src/sessions/agents/confinementPolicy';
import { FolderChanges } from '../../../../src/sessions/opening/folderChanges';
import type { AgentPool, RootsUi, WorkspacePort } from '../../../../src/sessions/ports';
import type { Reopener } from '../../../../src/sessions/opening/reopener';
import { AgentLifecycle } from '../../../../src/sessions/opening/agentLifecycle';
import type { SessionController } from '../../../../src/sessions/turns/sessionController';
import { startSession } from '../../../../src/sessions/routing/sessionLifecycle';
import { SessionRouter } from '../../../../src/sessions/routing/sessionRouter';
import type { SessionStarter } from '../../../../src/sessions/opening/sessionStarter';
import { Thread } from '../../../../src/thread/thread';
import { connectToMemoryAgent, type MemoryAgent } from '../../../helpers/memoryPeer';
import { tempDir, waitFor } from '../../../helpers/referenceAgent';

const NAME = 'Memory Agent';

function memento(): KeyValueStore {
  const data = new Map<string, unknown>();
  return { get: <T>(key: string) => data.get(key) as T | undefined, update: async (key, value) => void data.set(key, value) };
}

const fakeConfiner: Confiner = {
  mechanism: 'bubblewrap',
  description: 'bubblewrap 0.8.0',
  wrap: () => {
    throw new Error('not in this test');
  },
};

describe('a confined agent across the states of the window (launch, reload, crash, restart, grants)', function () {
  this.timeout(20_000);
  let scratch: { dir: string; cleanup: () => void };
  let app: string;
  let lib: string;
  let docs: string;
  /** The workspace's folders now. */
  let folders: string[];
  let grants: FolderGrants;
  let sessions: ActiveSessions;
  let router: SessionRouter;
  let chats: Chats;
  let confinement: AgentConfinement;
  let reopener: Reopener;
  let lifecycle: AgentLifecycle;
  let changes: FolderChanges;
  let pool: AgentPool;
  /** The current agent's connection (a new one at each launch). */
  let client: AcpConnection | undefined;
  const all: Array<{ client: AcpConnection; agent: MemoryAgent }> = [];
  /** What each launch may write (its policy's writable paths), in order. */
  let launches: string[][];
  /** The stale question FolderChanges asked. */
  let asked: string[];
  /** `session/prompt` never answers (a turn that runs until it is stopped). */
  let hang: boolean;

  async function launch(): Promise<void> {
    const launched = await confinement.launch(NAME, { command: { name: NAME, command: '/usr/bin/agent', args: [], env: {} }, statePaths: [] });
    launches.push('policy' in launched ? [...launched.policy.writable] : []);
    const next = connectToMemoryAgent();
    all.push(next);
    router.connect(next.client);
    next.agent.acceptInitialize();
    let created = 0;
    next.agent.rpc.onRequest('session/new', () => ({ sessionId: `s${++created}` }));
    for (const method of ['session/load', 'session/resume', 'session/close']) next.agent.rpc.onRequest(method, () => ({}));
    next.agent.rpc.onRequest('session/prompt', () => (hang ? new Promise(() => undefined) : { stopReason: 'end_turn' }));
    await next.client.initialize({ clientInfo: { name: 'acp-workspace', version: '0' } });
    client = next.client;
  }

  /** The params of every request with this method, over all the agent's launches. */
  const sent = (method: string) => all.flatMap(({ agent: peer }) => peer.sent(method).map((m) => m.params as Record<string, unknown>));
  const infos = (chat: SessionController) => chat.thread.snapshot().entries.flatMap((e) => (e.kind === 'info' ? [e.text] : []));
  const lastLaunch = () => launches.at(-1) ?? [];
  const covers = (writable: readonly string[], wanted: readonly string[]) => uncoveredFolders({ writable }, wanted).length === 0;

  /** A chat of a session started as SessionStarter starts one: its folders declared first. */
  async function newChat(cwd: string, others: string[] = []): Promise<SessionController> {
    await lifecycle.ensureCovers(NAME, [cwd, ...others]);
    const connection = await pool.start(NAME);
    const session = await startSession(connection, rootSetFromPaths(cwd, others));
    return chats.open(session);
  }

  beforeEach(async () => {
    scratch = tempDir();
    for (const name of ['app', 'lib', 'docs']) fs.mkdirSync(path.join(scratch.dir, name));
    [app, lib, docs] = ['app', 'lib', 'docs'].map((name) => fs.realpathSync.native(path.join(scratch.dir, name))) as [string, string, string];
    folders = [app, lib, docs];
    launches = [];
    asked = [];
    hang = false;
    client = undefined;
    grants = new FolderGrants(memento());
    sessions = new ActiveSessions();
    router = new SessionRouter({ sessions, logger: silentLogger });
    chats = new Chats({ router, sessions, logger: silentLogger });
    let starting: Promise<void> | undefined;
    pool = {
      start: async () => {
        if (!client || client.isClosed) await (starting ??= launch().finally(() => (starting = undefined)));
        return client!;
      },
      restart: async () => {
        client?.dispose(`${NAME} is restarting.`);
        await launch();
        return client!;
      },
      running: () => (client && !client.isClosed ? client : undefined),
      isRunning: () => client !== undefined && !client.isClosed,
    };
    const workspace: WorkspacePort = {
      isTrusted: () => true,
      candidates: () =>
        candidateRoots(
          folders.map((p) => ({ name: path.basename(p), uri: `file://${p}`, scheme: 'file', fsPath: p })),
          (p) => p,
        ),
      activeEditorFolderIndex: () => undefined,
      defaultAgent: () => '',
      primaryFolder: () => 'first',
      shareAllFolders: () => false,
      addFolder: () => false,
      openFolderInNewWindow: () => Promise.resolve(),
    };
    confinement = new AgentConfinement({
      mode: () => 'writes',
      platform: 'linux',
      findConfiner: () => Promise.resolve(fakeConfiner),
      grants,
      sessions,
      serving: (name) => chats.all().flatMap((chat) => (chat.session.agentName === name ? [chat.session] : [])),
      ui: () => ({ confinementUnavailable: () => Promise.resolve(undefined) }),
      home: path.join(scratch.dir, 'home'),
      env: {},
      logger: silentLogger,
    });
    lifecycle = new AgentLifecycle({
      agents: pool,
      chats,
      router,
      sessions,
      mcp: { forAgent: () => ({ servers: [], notPassed: [] }) },
      logger: silentLogger,
      confinement,
      grantsChanged: grants.onDidChange,
      sharedFolders: (name) => folders.filter((folder) => grants.isGranted(name, folder)).map(namedRoot),
    });
    reopener = lifecycle.reopener;
    const ui = { staleChoice: (message: string) => (asked.push(message), Promise.resolve('keep' as const)) } as unknown as RootsUi;
    changes = new FolderChanges({
      sessions,
      starter: {} as SessionStarter,
      grants,
      router,
      workspace,
      ui: () => ui,
      notices: { error: () => undefined },
      logger: silentLogger,
      lifecycle,
    });
  });

  afterEach(async () => {
    changes.dispose();
    lifecycle.dispose();
    confinement.dispose();
    chats.dispose();
    for (const { client: c, agent: a } of all.splice(0)) {
      await router.terminals(c)?.dispose();
      c.dispose();
      a.dispose();
    }
    scratch.cleanup();
  });

  it('after a reload, the agent of a restored chat writes in its session’s folders: the primary one (which needs no grant) and the granted ones', async () => {
    await grants.grant(NAME, [lib]);
    const thread = new Thread({
      agentName: NAME,
      sessionId: 'hist',
      roots: [],
      prompt: { image: false, audio: false, embeddedContext: false },
      status: 'loading',
    });
    const reopened = await reopener.reopen({
      verb: 'restore',
      agentName: NAME,
      sessionId: 'hist',
      thread,
      roots: () => Promise.resolve(rootSetFromPaths(app, [lib])),
    });
    assert.ok(reopened?.chat, 'the chat is back');
    assert.equal(reopened.session.connection, client, 'on the agent now running');
    assert.ok(
      covers(lastLaunch(), [app, lib]),
      `the launch serving the session writes in app and lib, not only in ${lastLaunch()
        .map((p) => path.basename(p))
        .join(', ')}`,
    );
  });

  it('a restored chat whose folders are known before its agent starts: the first launch covers them (no restart)', async () => {
    await grants.grant(NAME, [lib]);
    const thread = new Thread({
      agentName: NAME,
      sessionId: 'hist',
      roots: [],
      prompt: { image: false, audio: false, embeddedContext: false },
      status: 'loading',
    });
    await reopener.reopen({
      verb: 'restore',
      agentName: NAME,
      sessionId: 'hist',
      thread,
      expectedFolders: [app],
      roots: () => Promise.resolve(rootSetFromPaths(app, [lib])),
    });
    assert.equal(launches.length, 1, 'launched once');
    assert.ok(covers(launches[0]!, [app, lib]), `the first launch writes in app and lib: ${launches[0]!.map((p) => path.basename(p)).join(', ')}`);
    assert.deepEqual(
      sent('session/load').map((p) => [p['cwd'], p['additionalDirectories']]),
      [[app, [lib]]],
    );
  });

  it('every later launch covers the folders of the chats it serves, however they were opened: a crash and Reopen, a restart, a start from the Agents view', async () => {
    await grants.grant(NAME, [lib]);
    // A chat whose folders nobody declared to the confinement (the agent was started for something else).
    const chat = chats.open(await startSession(await pool.start(NAME), rootSetFromPaths(app, [lib])));
    client!.dispose('Memory Agent exited (exit code 1).');
    assert.equal(sessions.forAgent(NAME).length, 0, 'its session left with the connection');
    await reopener.recover(chat);
    assert.equal(chat.session.connection, client, 'reopened after the crash');
    assert.ok(
      covers(lastLaunch(), [app, lib]),
      `after a crash: ${lastLaunch()
        .map((p) => path.basename(p))
        .join(', ')}`,
    );
    await lifecycle.restartAgent(NAME);
    assert.ok(
      covers(lastLaunch(), [app, lib]),
      `after a restart: ${lastLaunch()
        .map((p) => path.basename(p))
        .join(', ')}`,
    );
    client!.dispose('Memory Agent was stopped.');
    await pool.start(NAME);
    assert.ok(
      covers(lastLaunch(), [app, lib]),
      `started again: ${lastLaunch()
        .map((p) => path.basename(p))
        .join(', ')}`,
    );
  });

  it('sharing a folder mid-session: the restart that widens the confinement reopens the session with it (the resume lists it, the chat shows it)', async () => {
    const chat = await newChat(app);
    assert.deepEqual(rootPaths(chat.session.rootSet), [app]);
    await grants.grant(NAME, [lib]);
    // Joins the restart the grant started.
    await lifecycle.ensureCovers(NAME, []);
    assert.equal(launches.length, 2, 'restarted once');
    assert.ok(covers(lastLaunch(), [app, lib]));
    assert.equal(chat.session.connection, client, 'the chat continues on the restarted agent');
    assert.deepEqual(
      sent('session/resume').map((p) => [p['cwd'], p['additionalDirectories']]),
      [[app, [lib]]],
      'the resumed session is given lib',
    );
    assert.deepEqual(rootPaths(chat.session.rootSet), [app, lib], 'and its guard lets it reach lib');
    assert.deepEqual(
      chat.thread.session.roots.map((r) => r.name),
      ['app', 'lib'],
      'the header shows lib',
    );
    assert.equal(chat.session.stale, undefined);
    assert.ok(infos(chat).includes(`Restarting ${NAME} so that its confinement includes lib.`), infos(chat).join('\n'));
    assert.ok(
      infos(chat).some((t) => /lib/.test(t) && /folders/i.test(t) && !t.startsWith('Restarting')),
      `the chat says the session has lib now: ${infos(chat).join('\n')}`,
    );
  });

  it('taking a folder back narrows the confinement at once: the running turn is stopped, the agent restarts without it, and the session reopens without it, saying why', async () => {
    await grants.grant(NAME, [lib]);
    const chat = await newChat(app, [lib]);
    assert.ok(covers(lastLaunch(), [app, lib]));
    hang = true;
    const turn = chat.prompt([{ type: 'text', text: 'go' }], [{ type: 'text', text: 'go' }]);
    await waitFor(() => sent('session/prompt').length === 1, 5000, 'the turn to start');
    await grants.revoke(NAME, [lib]);
    await waitFor(() => launches.length === 2, 5000, 'a new launch without lib after lib was taken back');
    await turn;
    assert.ok(covers(lastLaunch(), [app]));
    assert.equal(covers(lastLaunch(), [lib]), false, `lib is not writable any more: ${lastLaunch().join(', ')}`);
    await waitFor(() => chat.session.connection === client && chat.thread.session.status === 'idle', 5000, 'the session back');
    assert.deepEqual(
      sent('session/resume').map((p) => [p['cwd'], p['additionalDirectories']]),
      [[app, []]],
      'reopened without lib',
    );
    assert.deepEqual(rootPaths(chat.session.rootSet), [app]);
    const shown = infos(chat).join('\n');
    assert.match(shown, /Restarting Memory Agent so that it can no longer write in lib/);
    assert.match(shown, /The turn was stopped: Memory Agent restarted\./);
    assert.deepEqual(asked, [], 'nothing left to reopen: the session already has the folders shared now');
  });

  it('removing a workspace folder narrows the confinement too, though the folder is still granted', async () => {
    await grants.grant(NAME, [lib]);
    const chat = await newChat(app, [lib]);
    folders = [app, docs];
    await changes.foldersChanged();
    assert.equal(launches.length, 2, 'restarted');
    assert.equal(covers(lastLaunch(), [lib]), false, `lib is not writable any more: ${lastLaunch().join(', ')}`);
    assert.deepEqual(rootPaths(chat.session.rootSet), [app]);
  });

  it('a folder taken back from one session stays writable while another open session of the agent works in it (its primary folder), also after a restart', async () => {
    await grants.grant(NAME, [lib]);
    const first = await newChat(app, [lib]);
    const second = await newChat(lib);
    await grants.revoke(NAME, [lib]);
    await waitFor(() => asked.length === 1, 5000, 'the question about the first session');
    assert.equal(launches.length, 1, 'not restarted: the second session works in lib');
    assert.deepEqual(first.session.withdrawn, [lib], 'the first session cannot reach lib through the client any more');
    await lifecycle.restartAgent(NAME);
    assert.ok(covers(lastLaunch(), [lib]), 'the restarted agent still writes in lib for the second session');
    assert.equal(second.session.connection, client);
  });
});
