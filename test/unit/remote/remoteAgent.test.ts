import * as assert from 'node:assert/strict';
import type { AcpConnection } from '../../../src/acp/connection';
import { ConnectionClosedError, ProtocolVersionError } from '../../../src/acp/errors';
import type { RemoteEndpoint, RemoteLink } from '../../../src/acp/transport/remote';
import type { AcpTransport } from '../../../src/acp/transport/transport';
import { AgentStartError } from '../../../src/process/startFailure';
import { RemoteAgent, type RemoteAgentOptions } from '../../../src/remote/remoteAgent';
import { conformance } from '../../helpers/conformance';
import { FakeClock, FakeLinks, watchStates, type LinkPlan } from './remoteAgentFakes';
import { v1 } from '../../helpers/v1Connection';

const clientInfo = { name: 'acp-workspace', version: '0.0.0-test' };
const endpoint: RemoteEndpoint = { url: 'wss://box.example/acp?team=a', kind: 'websocket', allowInsecure: false };
const NETWORK_DROP = { cause: 'network', reason: 'The connection to Box (wss://box.example/acp) was reset.', retry: true } as const;
const REFUSED = { cause: 'network', reason: 'Box (wss://box.example/acp) refused the connection.', retry: true } as const;
const AUTH = { cause: 'auth', reason: 'Box (wss://box.example/acp) refused the token (401 Unauthorized).', retry: false } as const;

describe('RemoteAgent', () => {
  let agent: RemoteAgent | undefined;
  let clock: FakeClock;
  let links: FakeLinks;
  let credentialReads: number;

  function remote(plans: LinkPlan[], options: Partial<RemoteAgentOptions> = {}): RemoteAgent {
    clock = new FakeClock();
    links = new FakeLinks(...plans);
    credentialReads = 0;
    agent = new RemoteAgent({
      name: 'Box',
      endpoint,
      credentials: () => {
        credentialReads++;
        return Promise.resolve({ token: 'secret-token' });
      },
      linkFactory: links.factory,
      clientInfo,
      clock,
      backoff: { random: () => 0.5 },
      tap: conformance.newTap(),
      ...options,
    });
    return agent;
  }

  afterEach(async () => {
    await agent?.dispose();
    for (const link of links?.links ?? []) link.agent.dispose();
    agent = undefined;
  });

  /** A request the agent never answers, sent on `connection`. */
  function hangingList(connection: AcpConnection, linkIndex: number): Promise<unknown> {
    links.links[linkIndex]!.agent.rpc.onRequest('session/list', () => new Promise(() => undefined));
    const answer = connection.listSessions({});
    answer.catch(() => undefined); // asserted later; not an unhandled rejection meanwhile
    return answer;
  }

  describe('start', () => {
    it('opens a link with the credentials, initializes over it, and is running', async () => {
      const box = remote(['answer'], { maxMessageBytes: 4096, connectTimeoutMs: 1234 });
      const states = watchStates(box);
      const connection = v1(await box.start());
      assert.deepEqual(
        states.changes.map((c) => c.state),
        ['starting', 'running'],
      );
      assert.equal(box.state, 'running');
      assert.equal(box.connection, connection);
      assert.equal(box.caps?.sessions.list, true);
      assert.deepEqual(links.kinds, ['websocket']);
      const [link] = links.links;
      assert.equal(link!.options.peer, 'Box');
      assert.equal(link!.options.credentials.token, 'secret-token');
      assert.equal(link!.options.maxMessageBytes, 4096);
      assert.equal(link!.options.connectTimeoutMs, 1234);
      assert.deepEqual(link!.agent.sent('initialize').length, 1);
      assert.deepEqual(box.remote, { url: endpoint.url, kind: 'websocket' });
      assert.equal(box.pid, undefined);
      assert.equal(box.confinement, undefined);
      assert.deepEqual(box.recentStderr, []);
      assert.equal(await box.start(), connection, 'a second start joins the running connection');
    });

    it('reports a Sandbox Agent server agent with its id', async () => {
      const box = remote(['answer'], { endpoint: { url: 'http://127.0.0.1:2468', kind: 'sandbox-agent', sandboxAgent: 'opencode', allowInsecure: false } });
      await box.start();
      assert.deepEqual(links.kinds, ['sandbox-agent']);
      assert.deepEqual(box.remote, { url: 'http://127.0.0.1:2468', kind: 'sandbox-agent', sandboxAgent: 'opencode' });
    });

    it('talks through the transport wrapTransport makes of the link', async () => {
      const wrapped: RemoteLink[] = [];
      const box = remote(['answer'], {
        wrapTransport: (link): AcpTransport => {
          wrapped.push(link);
          return { peer: link.peer, open: (hooks) => link.open(hooks) };
        },
      });
      await box.start();
      assert.deepEqual(wrapped, [links.links[0]]);
    });

    it('refuses a plain ws:// URL to another machine: failed in words, nothing connected, no credentials read', async () => {
      const box = remote(['answer'], { endpoint: { url: 'ws://box.example:8080/acp', kind: 'websocket', allowInsecure: false } });
      const states = watchStates(box);
      await assert.rejects(box.start(), (error: Error) => {
        assert.ok(error instanceof AgentStartError);
        assert.equal(error.agent, 'Box');
        assert.match(error.message, /^Box was not connected: ws:\/\/box\.example:8080\/acp is not encrypted/);
        return true;
      });
      assert.equal(box.state, 'failed');
      assert.match(states.changes.at(-1)!.message!, /not encrypted/);
      assert.equal(links.links.length, 0);
      assert.equal(credentialReads, 0);
    });

    it('fails on a refused token and does not retry, saying to set the token', async () => {
      const box = remote([{ end: AUTH }]);
      await assert.rejects(box.start(), (error: Error) => {
        assert.ok(error instanceof AgentStartError);
        assert.match(error.message, /refused the token \(401 Unauthorized\)\. Set its token with "ACP: Set Remote Agent Token…", then start Box again\./);
        assert.deepEqual(error.remote, { credentialsRefused: true }, 'the failure says it is a refused token (Set Token…, not Sign In)');
        return true;
      });
      assert.equal(box.state, 'failed');
      assert.equal(box.remote.credentialsRefused, true);
      assert.deepEqual(clock.pending(), [], 'no reconnect planned');
      assert.equal(links.links.length, 1);
      assert.ok(links.links[0]!.closeCalls >= 1, 'the link is closed');
    });

    it("does not repeat how to set the token when the link's words already say it", async () => {
      const reason = 'Box refused the credentials for wss://box.example/acp (HTTP 401). Set the token with "ACP: Set Remote Agent Token…".';
      const box = remote([{ end: { cause: 'auth', reason, retry: false } }]);
      await assert.rejects(box.start(), (error: Error) => error.message === `${reason} Once the token is set, start Box again.`);
    });

    it('fails when the server cannot be reached at start (no reconnect for a start the user asked for)', async () => {
      const box = remote([{ end: REFUSED }]);
      await assert.rejects(box.start(), /refused the connection/);
      assert.equal(box.state, 'failed');
      assert.deepEqual(clock.pending(), []);
    });

    it('a start() made on hearing "failed" makes a new attempt instead of joining the failed one', async () => {
      const box = remote([{ end: REFUSED }, 'answer']);
      let retry: Promise<AcpConnection> | undefined;
      box.onDidChangeState((change) => {
        if (change.state === 'failed') retry ??= box.start().then(v1);
      });
      await assert.rejects(box.start(), /refused the connection/);
      assert.ok(retry);
      await retry;
      assert.equal(box.state, 'running');
      assert.equal(links.links.length, 2);
    });

    it('fails when initialize does not finish in time, and closes the link', async () => {
      const box = remote(['silent'], { initializeTimeoutMs: 60_000 });
      const started = box.start();
      const link = await links.link(1);
      await link.initializeSeen;
      clock.advance(60_000);
      await assert.rejects(started, (error: Error) => error instanceof AgentStartError && error.message === 'Box did not finish starting within 60 s.');
      assert.equal(box.state, 'failed');
      assert.equal(link.closeCalls, 1);
    });

    it('fails on another protocol version, as a local agent does', async () => {
      const box = remote([{ answer: { protocolVersion: 2 } }]);
      await assert.rejects(box.start(), (error: Error) => {
        assert.ok(error instanceof AgentStartError);
        assert.equal(error.message, new ProtocolVersionError('Box', 2, 1).message);
        return true;
      });
      assert.equal(box.state, 'failed');
      assert.equal(links.links[0]!.closeCalls, 1);
    });

    it('fails in words when the token cannot be read', async () => {
      const box = remote(['answer'], { credentials: () => Promise.reject(new Error('the secret storage is locked')) });
      await assert.rejects(box.start(), /Box was not connected: its token could not be read: the secret storage is locked/);
      assert.equal(box.state, 'failed');
      assert.equal(links.links.length, 0);
    });
  });

  describe('a link that drops while running', () => {
    it('fails pending requests with the reason, says so, reconnects after the backoff and fires onDidRestart', async () => {
      const box = remote(['answer']);
      const first = v1(await box.start());
      const states = watchStates(box);
      const pending = hangingList(first, 0);
      const restarted = new Promise<AcpConnection>((resolve) => box.onDidRestart((c) => resolve(v1(c))));
      const waiting = states.until((c) => c.state === 'stopped');
      links.links[0]!.drop(NETWORK_DROP);

      await assert.rejects(pending, (error: Error) => {
        assert.ok(error instanceof ConnectionClosedError);
        assert.equal(error.reason, NETWORK_DROP.reason);
        return true;
      });
      const change = await waiting;
      assert.equal(
        change.message,
        'Lost the connection to Box (wss://box.example/acp): The connection to Box (wss://box.example/acp) was reset. Reconnecting in 1 s…',
      );
      assert.equal(box.connection, undefined);
      assert.deepEqual(clock.pending(), [1000]);
      assert.equal(box.remote.reconnectAt, clock.now() + 1000);
      assert.doesNotMatch(change.message, /secret-token|team=a/, 'no token, no query in the words');

      clock.advance(1000);
      const second = await restarted;
      assert.notEqual(second, first);
      assert.equal(box.connection, second);
      assert.equal(box.state, 'running');
      assert.equal(box.remote.reconnectAt, undefined);
      assert.equal(links.links.length, 2);
      assert.equal(credentialReads, 2, 'the credentials are read again at each connect');
      assert.deepEqual(
        states.changes.map((c) => c.state),
        ['stopped', 'starting', 'running'],
      );
    });

    it('waits longer after each failed attempt (1 s, 2 s, 4 s), each attempt a visible state, until one succeeds', async () => {
      const box = remote(['answer', { end: REFUSED }, { end: REFUSED }, 'answer']);
      await box.start();
      const states = watchStates(box);
      const restarted = new Promise<AcpConnection>((resolve) => box.onDidRestart((c) => resolve(v1(c))));
      let waiting = states.until((c) => c.state === 'stopped');
      links.links[0]!.drop(NETWORK_DROP);
      await waiting;
      assert.deepEqual(clock.pending(), [1000]);

      waiting = states.until((c) => c.state === 'stopped');
      clock.advance(1000);
      const second = await waiting;
      assert.equal(
        second.message,
        'Could not reconnect to Box (wss://box.example/acp): Box (wss://box.example/acp) refused the connection. Reconnecting in 2 s (attempt 2 of 10)…',
      );
      assert.deepEqual(clock.pending(), [2000]);

      waiting = states.until((c) => c.state === 'stopped');
      clock.advance(2000);
      assert.match((await waiting).message!, /Reconnecting in 4 s \(attempt 3 of 10\)…$/);
      assert.deepEqual(clock.pending(), [4000]);

      clock.advance(4000);
      await restarted;
      assert.equal(box.state, 'running');
      assert.deepEqual(
        states.changes.map((c) => c.state),
        ['stopped', 'starting', 'stopped', 'starting', 'stopped', 'starting', 'running'],
      );
      assert.equal(links.links.length, 4);
    });

    it('reconnects with the real clock when none is injected', async () => {
      const box = remote(['answer'], { clock: undefined, backoff: { initialMs: 5, maxMs: 5, random: () => 0.5 } });
      const first = v1(await box.start());
      const restarted = new Promise<AcpConnection>((resolve) => box.onDidRestart((c) => resolve(v1(c))));
      links.links[0]!.drop(NETWORK_DROP);
      assert.notEqual(await restarted, first);
      assert.equal(box.state, 'running');
    });

    it('starts over from the first wait after a successful reconnect', async () => {
      const box = remote(['answer']);
      await box.start();
      const states = watchStates(box);
      for (const index of [0, 1]) {
        const restarted = new Promise<AcpConnection>((resolve) => box.onDidRestart((c) => resolve(v1(c))));
        const waiting = states.until((c) => c.state === 'stopped');
        links.links[index]!.drop(NETWORK_DROP);
        assert.match((await waiting).message!, /Reconnecting in 1 s…$/);
        clock.advance(1000);
        await restarted;
      }
    });

    it('gives up after the attempts are used up: failed with the last reason and how to try again', async () => {
      const box = remote(['answer', { end: REFUSED }, { end: REFUSED }, { end: REFUSED }, 'answer'], { backoff: { random: () => 0.5, maxAttempts: 3 } });
      await box.start();
      const states = watchStates(box);
      const failed = states.until((c) => c.state === 'failed');
      let waiting = states.until((c) => c.state === 'stopped');
      links.links[0]!.drop(NETWORK_DROP);
      await waiting;
      for (const wait of [1000, 2000]) {
        waiting = states.until((c) => c.state === 'stopped');
        clock.advance(wait);
        await waiting;
      }
      clock.advance(4000);
      const change = await failed;
      assert.equal(
        change.message,
        'Lost the connection to Box (wss://box.example/acp): Box (wss://box.example/acp) refused the connection. Gave up after 3 attempts to reconnect. Restart Box to try again.',
      );
      assert.deepEqual(clock.pending(), []);
      assert.equal(box.remote.reconnectAt, undefined);
      assert.equal(links.links.length, 4);
      clock.advance(600_000);
      assert.equal(links.links.length, 4, 'nothing more is tried');

      // Restart tries again, from the first wait.
      await box.restart();
      assert.equal(box.state, 'running');
    });

    it('does not reconnect when the link says retrying cannot help (a refused token): failed, saying to set the token', async () => {
      const box = remote(['answer']);
      await box.start();
      const states = watchStates(box);
      const failed = states.until((c) => c.state === 'failed');
      links.links[0]!.drop(AUTH);
      const change = await failed;
      assert.equal(
        change.message,
        'Lost the connection to Box (wss://box.example/acp): Box (wss://box.example/acp) refused the token (401 Unauthorized). Set its token with "ACP: Set Remote Agent Token…", then start Box again.',
      );
      assert.deepEqual(clock.pending(), []);
      assert.deepEqual(
        states.changes.map((c) => c.state),
        ['failed'],
      );
    });

    it('stops reconnecting when a reconnect meets a refused token', async () => {
      const box = remote(['answer', { end: AUTH }]);
      await box.start();
      const states = watchStates(box);
      const failed = states.until((c) => c.state === 'failed');
      const waiting = states.until((c) => c.state === 'stopped');
      links.links[0]!.drop(NETWORK_DROP);
      await waiting;
      clock.advance(1000);
      assert.match(
        (await failed).message!,
        /^Could not reconnect to Box \(wss:\/\/box\.example\/acp\): .*refused the token \(401 Unauthorized\)\. Set its token with/,
      );
      assert.deepEqual(clock.pending(), []);
      assert.equal(box.remote.credentialsRefused, true, 'its chats offer Set Token…');
    });

    it('says the drop (and plans the reconnect) before its connection closes, so whoever hears the close knows it reconnects', async () => {
      const box = remote(['answer', 'answer']);
      const first = v1(await box.start());
      let atClose: { state: string; reconnectAt: number | undefined } | undefined;
      first.onDidClose(() => (atClose = { state: box.state, reconnectAt: box.remote.reconnectAt }));
      const closed = new Promise<void>((resolve) => first.onDidClose(() => resolve()));
      // The connection has read everything (the end-of-stream marker) before the link says why it ended.
      links.links[0]!.dropAfterTheStreamEnded(NETWORK_DROP);
      await closed;
      assert.deepEqual(atClose, { state: 'stopped', reconnectAt: clock.now() + 1000 });
      assert.equal(box.remote.credentialsRefused, undefined);
    });

    it('retries a reconnect whose initialize timed out', async () => {
      const box = remote(['answer', 'silent', 'answer'], { initializeTimeoutMs: 60_000 });
      await box.start();
      const states = watchStates(box);
      const restarted = new Promise<AcpConnection>((resolve) => box.onDidRestart((c) => resolve(v1(c))));
      let waiting = states.until((c) => c.state === 'stopped');
      links.links[0]!.drop(NETWORK_DROP);
      await waiting;
      clock.advance(1000);
      await (
        await links.link(2)
      ).initializeSeen;
      waiting = states.until((c) => c.state === 'stopped');
      clock.advance(60_000);
      assert.match((await waiting).message!, /Box did not finish starting within 60 s\. Reconnecting in 2 s \(attempt 2 of 10\)…$/);
      assert.equal(links.links[1]!.closeCalls, 1);
      clock.advance(2000);
      await restarted;
    });

    it('stop() during the wait cancels the reconnect', async () => {
      const box = remote(['answer']);
      await box.start();
      const states = watchStates(box);
      const waiting = states.until((c) => c.state === 'stopped');
      links.links[0]!.drop(NETWORK_DROP);
      await waiting;
      await box.stop();
      assert.equal(box.state, 'stopped');
      assert.equal(states.changes.at(-1)!.message, 'Box was stopped.', 'the "Reconnecting in …" words are replaced');
      assert.equal(box.remote.reconnectAt, undefined);
      assert.deepEqual(clock.pending(), []);
      clock.advance(600_000);
      assert.equal(links.links.length, 1);
    });

    it('start() during the wait reconnects at once and fires onDidRestart', async () => {
      const box = remote(['answer']);
      await box.start();
      const states = watchStates(box);
      const restarted = new Promise<AcpConnection>((resolve) => box.onDidRestart((c) => resolve(v1(c))));
      const waiting = states.until((c) => c.state === 'stopped');
      links.links[0]!.drop(NETWORK_DROP);
      await waiting;
      const connection = v1(await box.start());
      assert.equal(await restarted, connection);
      assert.deepEqual(clock.pending(), []);
    });
  });

  describe('stop, restart, dispose', () => {
    it('stop() fails pending requests with the reason and closes the link', async () => {
      const box = remote(['answer']);
      const connection = v1(await box.start());
      const states = watchStates(box);
      const pending = hangingList(connection, 0);
      await box.stop('Box is no longer needed.');
      await assert.rejects(pending, (error: Error) => error instanceof ConnectionClosedError && error.reason === 'Box is no longer needed.');
      assert.deepEqual(
        states.changes.map((c) => c.state),
        ['stopping', 'stopped'],
      );
      assert.equal(links.links[0]!.closeCalls, 1);
      assert.equal(box.connection, undefined);
      assert.deepEqual(clock.pending(), [], 'our own close is not a drop');
    });

    it('restart() closes the link with "is restarting" and connects again, without onDidRestart', async () => {
      const box = remote(['answer']);
      const first = v1(await box.start());
      const states = watchStates(box);
      let fired = 0;
      box.onDidRestart(() => fired++);
      const pending = hangingList(first, 0);
      const second = v1(await box.restart());
      await assert.rejects(pending, (error: Error) => error instanceof ConnectionClosedError && error.reason === 'Box is restarting.');
      assert.notEqual(second, first);
      assert.deepEqual(
        states.changes.map((c) => c.state),
        ['stopping', 'stopped', 'starting', 'running'],
      );
      assert.equal(links.links.length, 2);
      assert.equal(fired, 0);
    });

    it('stop() while connecting ends the connect: stopped, not failed', async () => {
      const box = remote(['silent']);
      const started = box.start();
      const outcome = started.then(
        () => undefined,
        (error: Error) => error,
      );
      await (
        await links.link(1)
      ).initializeSeen;
      await box.stop();
      assert.match(String(await outcome), /Box was stopped\./);
      assert.equal(box.state, 'stopped');
      assert.equal(links.links[0]!.closeCalls, 1);
    });

    it('dispose() closes the link saying ACP Workspace is shutting down', async () => {
      const box = remote(['answer']);
      const connection = v1(await box.start());
      const pending = hangingList(connection, 0);
      await box.dispose();
      await assert.rejects(pending, /Box was stopped because ACP Workspace is shutting down\./);
      assert.equal(box.state, 'stopped');
      assert.equal(links.links[0]!.closeCalls, 1);
      agent = undefined;
    });
  });
});
