/**
 * The extension's remote agent runtime against the reference agent served by the SDK's own server transport
 * (`@agentclientprotocol/sdk/experimental/server`), over WebSocket and over Streamable HTTP, through a path mapping:
 * the agent sees /srv/app and /srv/lib for two local folders (a third is not shared). new, list, load and fork
 * carry the complete root list in the agent's paths and come back in local ones; a read inside the mapped roots
 * reaches the local file, one outside them is refused before any handler sees it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AcpConnection } from '../../src/acp/connection';
import { createPathMapper } from '../../src/acp/pathMapping';
import { mappedTransport, type PathRefusal } from '../../src/acp/pathMappingTransport';
import * as acp from '../../src/acp/schema';
import type { RemoteKind, RemoteLinkFactory } from '../../src/acp/transport/remote';
import { streamableHttpLink } from '../../src/acp/transport/streamableHttp';
import { webSocketLink } from '../../src/acp/transport/ws';
import type { Message } from 'vscode-jsonrpc/node';
import type { RemoteLink } from '../../src/acp/transport/remote';
import { silentLogger } from '../../src/common/logger';
import { RemoteAgent } from '../../src/remote/remoteAgent';
import { rootSetFromPaths } from '../../src/roots/rootSet';
import { ActiveSessions } from '../../src/sessions/routing/activeSessions';
import type { AgentSession } from '../../src/sessions/routing/agentSession';
import { startSession } from '../../src/sessions/routing/sessionLifecycle';
import { SessionRouter } from '../../src/sessions/routing/sessionRouter';
import { serveReferenceAgent, type ServedAgent } from '../fixtures/referenceAgent/serve';
import { v1 } from '../helpers/v1Connection';

const TOKEN = 'interop-remote-token';

interface StoredRecord {
  readonly sessionId: string;
  readonly cwd: string;
  readonly additionalDirectories?: readonly string[];
}

for (const kind of ['websocket', 'http'] as const) {
  describe(`the reference agent served over ${kind === 'websocket' ? 'WebSocket' : 'Streamable HTTP'} by the SDK, through a path mapping`, function () {
    this.timeout(60_000);
    let served: ServedAgent;
    let agent: RemoteAgent;
    let connection: AcpConnection;
    let home: string;
    let store: string;
    let app: string;
    let lib: string;
    let docs: string;
    const reads: string[] = [];
    const refusals: PathRefusal[] = [];
    const updates: { sessionId: string; kind: string }[] = [];

    const record = (sessionId: string): StoredRecord => {
      for (const file of fs.readdirSync(store).filter((f) => f.endsWith('.json'))) {
        const entry = JSON.parse(fs.readFileSync(path.join(store, file), 'utf8')) as StoredRecord;
        if (entry.sessionId === sessionId) return entry;
      }
      throw new Error(`the agent has no record of ${sessionId}`);
    };
    const lastText = (sessionId: string) => updates.filter((u) => u.sessionId === sessionId && u.kind === 'agent_message_chunk').length;

    before(async () => {
      home = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-remote-interop-')));
      store = path.join(home, 'store');
      [app, lib, docs] = ['app', 'lib', 'docs'].map((name) => path.join(home, name)) as [string, string, string];
      for (const folder of [app, lib, docs]) fs.mkdirSync(folder);
      fs.writeFileSync(path.join(lib, 'notes.md'), 'first line of lib\nsecond\n');
      fs.writeFileSync(path.join(docs, 'secret.md'), 'not shared\n');
      served = await serveReferenceAgent({ args: ['--store', store], token: TOKEN });
      const mapper = createPathMapper([
        { local: app, remote: '/srv/app' },
        { local: lib, remote: '/srv/lib' },
      ]);
      const links: Record<RemoteKind, RemoteLinkFactory | undefined> = { websocket: webSocketLink, http: streamableHttpLink, 'sandbox-agent': undefined };
      agent = new RemoteAgent({
        name: 'Served Reference Agent',
        endpoint: { url: kind === 'websocket' ? served.wsUrl : served.httpUrl, kind, allowInsecure: false },
        credentials: () => Promise.resolve({ token: TOKEN }),
        linkFactory: (k) => links[k]!,
        wrapTransport: (link) => mappedTransport(link, mapper, { onRefused: (refusal) => refusals.push(refusal) }),
        clientInfo: { name: 'acp-workspace-interop', version: '0' },
        registerHandlers: (connection) => {
          const c = v1(connection);
          c.onRequest(acp.ReadTextFileMethod, (params) => {
            reads.push(params.path);
            return { content: fs.readFileSync(params.path, 'utf8') };
          });
          c.onNotification(acp.SessionUpdateNotification, (params) => updates.push({ sessionId: params.sessionId, kind: params.update.sessionUpdate }));
          c.onRequest(acp.RequestPermissionMethod, (params) => ({ outcome: { outcome: 'selected' as const, optionId: params.options[0]!.optionId } }));
        },
      });
      connection = v1(await agent.start());
    });

    after(async () => {
      await agent?.dispose();
      await served?.close();
      fs.rmSync(home, { recursive: true, force: true });
    });

    it('starts a session with the complete root list in the agent’s paths, and reads a mapped file from the local folder', async () => {
      assert.equal(connection.caps.sessions.additionalDirectories, true);
      const { sessionId } = await connection.newSession({ cwd: app, additionalDirectories: [lib], mcpServers: [] });
      assert.deepEqual(record(sessionId), { ...record(sessionId), cwd: '/srv/app', additionalDirectories: ['/srv/lib'] });

      await connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'read /srv/lib/notes.md' }] });
      assert.deepEqual(reads, [path.join(lib, 'notes.md')], 'the handler got the local path');

      await connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'permission' }] });
      assert.ok(lastText(sessionId) > 0);
    });

    it('refuses a read outside the mapped roots in the transport: no handler sees it, and the refusal is reported with its session', async () => {
      const { sessionId } = await connection.newSession({ cwd: app, additionalDirectories: [lib], mcpServers: [] });
      const before = reads.length;
      await connection.prompt({ sessionId, prompt: [{ type: 'text', text: `read ${path.join(docs, 'secret.md')}` }] });
      await connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'read /etc/hostname' }] });
      assert.equal(reads.length, before, 'no handler saw either path');
      assert.deepEqual(
        refusals.slice(-2).map((r) => [r.method, r.path, r.sessionId]),
        [
          ['fs/read_text_file', path.join(docs, 'secret.md'), sessionId],
          ['fs/read_text_file', '/etc/hostname', sessionId],
        ],
      );
    });

    it('lists sessions in local paths, loads one with its root list replayed, and forks it with the complete root list', async () => {
      const { sessionId } = await connection.newSession({ cwd: app, additionalDirectories: [lib], mcpServers: [] });
      await connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'hello from the client' }] });

      const listed = await connection.listSessions({ cwd: app });
      const mine = listed.sessions.find((s) => s.sessionId === sessionId);
      assert.ok(mine, 'the session is listed under the local folder');
      assert.equal(mine.cwd, app);
      assert.deepEqual(mine.additionalDirectories, [lib]);
      assert.ok(
        listed.sessions.every((s) => s.cwd === app),
        'every listed session in local paths',
      );

      const replayedBefore = updates.filter((u) => u.sessionId === sessionId).length;
      await connection.loadSession({ sessionId, cwd: app, additionalDirectories: [lib], mcpServers: [] });
      assert.ok(updates.filter((u) => u.sessionId === sessionId).length > replayedBefore, 'the history was replayed');
      assert.deepEqual([record(sessionId).cwd, record(sessionId).additionalDirectories], ['/srv/app', ['/srv/lib']]);

      const fork = await connection.forkSession({ sessionId, cwd: app, additionalDirectories: [lib], mcpServers: [] });
      assert.notEqual(fork.sessionId, sessionId);
      assert.deepEqual([record(fork.sessionId).cwd, record(fork.sessionId).additionalDirectories], ['/srv/app', ['/srv/lib']]);
    });

    it('never hands the agent a folder the mapping does not share: the request is refused before it is sent', async () => {
      await assert.rejects(connection.newSession({ cwd: app, additionalDirectories: [docs], mcpServers: [] }), (error: Error) => error.message.includes(docs));
    });
  });
}

/** `link` with every message written to the agent (the agent's side of the path mapping) kept in `log`. */
function recording(link: RemoteLink, log: Message[]): RemoteLink {
  return {
    peer: link.peer,
    ended: link.ended,
    close: () => link.close(),
    open: (hooks) => {
      const { reader, writer } = link.open(hooks);
      return {
        reader,
        writer: {
          onError: writer.onError,
          onClose: writer.onClose,
          write: (message: Message) => {
            log.push(message);
            return writer.write(message);
          },
          end: () => writer.end(),
          dispose: () => writer.dispose(),
        },
      };
    },
  };
}

for (const kind of ['websocket', 'http'] as const) {
  describe(`refusals answered to the reference agent served over ${kind === 'websocket' ? 'WebSocket' : 'Streamable HTTP'}: in its paths, naming only its session's folders (issue 24, item 11)`, function () {
    this.timeout(60_000);
    let served: ServedAgent;
    let agent: RemoteAgent;
    let connection: AcpConnection;
    let router: SessionRouter;
    let home: string;
    let session: AgentSession;
    const toAgent: Message[] = [];
    const said: string[] = [];

    before(async () => {
      home = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-remote-refusals-')));
      const [app, lib, secret] = ['app', 'lib', 'secret'].map((name) => path.join(home, name)) as [string, string, string];
      for (const folder of [app, lib, secret]) fs.mkdirSync(folder);
      fs.writeFileSync(path.join(lib, 'notes.md'), 'shared with the agent, not with this session\n');
      fs.writeFileSync(path.join(secret, 'id_ed25519'), 'private\n');
      // A link inside the session's folder to a file outside every shared folder: the guard names where it leads.
      fs.symlinkSync(path.join(secret, 'id_ed25519'), path.join(app, 'key-link'));
      // It asks for a terminal even though it is not offered one, as a hostile agent would.
      served = await serveReferenceAgent({ args: ['--store', path.join(home, 'store'), '--fault', 'ignore-client-capabilities'], token: TOKEN });
      const mapper = createPathMapper([
        { local: app, remote: '/srv/app' },
        { local: lib, remote: '/srv/lib' },
      ]);
      const sessions = new ActiveSessions();
      router = new SessionRouter({ sessions, logger: silentLogger });
      const links: Record<RemoteKind, RemoteLinkFactory | undefined> = { websocket: webSocketLink, http: streamableHttpLink, 'sandbox-agent': undefined };
      agent = new RemoteAgent({
        name: 'Served Reference Agent',
        endpoint: { url: kind === 'websocket' ? served.wsUrl : served.httpUrl, kind, allowInsecure: false },
        credentials: () => Promise.resolve({ token: TOKEN }),
        linkFactory: (k) => links[k]!,
        wrapTransport: (link) =>
          mappedTransport(recording(link, toAgent), mapper, { onRefused: (refusal) => router.refusedUnmapped('Served Reference Agent', refusal) }),
        clientInfo: { name: 'acp-workspace-interop', version: '0' },
        // The real agent → client handlers (fs through the session's RootGuard), as the extension registers them
        // for a remote entry without "localTerminal".
        registerHandlers: (c) => router.connect(c, undefined, { localTerminal: false }),
      });
      connection = v1(await agent.start());
      // The session has app only; lib is shared with the agent but not given to this session.
      session = await startSession(connection, rootSetFromPaths(app));
      sessions.add(session);
      // What the agent says in the session, as its chat would get it.
      await router.route(connection, session.sessionId, {
        onEvent: (event) => {
          if (event.type === 'message' && event.role === 'agent' && event.content.type === 'text') said.push(event.content.text);
        },
        requestPermission: () => Promise.resolve({ outcome: 'cancelled' }),
        noteRefusal: () => undefined,
        updateTerminal: () => undefined,
        noteTerminalFailure: () => undefined,
        noteDiscarded: () => undefined,
        confirmCommand: () => Promise.resolve(false),
      });
    });

    after(async () => {
      await agent?.dispose();
      router?.dispose();
      await served?.close();
      fs.rmSync(home, { recursive: true, force: true });
    });

    /** The error answers the agent got for its requests, in order. */
    const answers = () =>
      toAgent.flatMap((message) => {
        const { error } = message as { error?: { code: number; message: string; data?: Record<string, unknown> } };
        return error === undefined ? [] : [error];
      });

    it('a file of a shared folder this session was not given, a link out of the folders, an unshared path, a missing file, a terminal: no local path reaches the agent', async () => {
      for (const file of ['/srv/lib/notes.md', '/srv/app/key-link', '/etc/hostname', '/srv/app/missing.md']) {
        await connection.prompt({ sessionId: session.sessionId, prompt: [{ type: 'text', text: `read ${file}` }] });
      }
      await connection.prompt({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'run-in /srv/app ls -la' }] });
      const errors = answers();
      assert.equal(errors.length, 5, JSON.stringify(errors));
      const [otherFolder, link, unshared, missing, terminal] = errors;
      assert.deepEqual(terminal, {
        code: -32601,
        message:
          'Served Reference Agent runs on another machine: ACP Workspace does not run its commands on this one (the client terminal is not offered to remote agents).',
        data: { command: 'ls', reason: 'not-offered' },
      });
      assert.equal(otherFolder!.message, '"/srv/lib/notes.md" is outside this session’s folder (/srv/app)');
      assert.deepEqual(otherFolder!.data, { path: '/srv/lib/notes.md', roots: ['/srv/app'], reason: 'outside-roots' });
      assert.equal(link!.message, "Refused: /srv/app/key-link is outside this session's folders (/srv/app).");
      assert.deepEqual(link!.data, { path: '/srv/app/key-link', roots: ['/srv/app'], reason: 'outside-roots' });
      assert.equal(unshared!.message, "/etc/hostname is outside this session's folders (/srv/app).");
      assert.deepEqual(unshared!.data, { path: '/etc/hostname', roots: ['/srv/app'], reason: 'not-shared' });
      assert.match(missing!.message, /^"\/srv\/app\/missing\.md"/);
      // What the agent was sent, and what it then said, never names this machine's folders.
      assert.doesNotMatch(JSON.stringify(toAgent), new RegExp(home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.ok(
        said.some((text) => text.includes('/srv/lib/notes.md')),
        'the agent reported the refusal',
      );
      assert.ok(
        said.every((text) => !text.includes(home)),
        said.join('\n'),
      );
    });
  });
}
