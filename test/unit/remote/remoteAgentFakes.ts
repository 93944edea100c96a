/**
 * Fakes for RemoteAgent tests: a clock whose timers run only when the test moves the time on, and links made of
 * in-memory streams with a scriptable agent ({@link MemoryAgent}) at the other end.
 */
import type { LinkEnd, RemoteLink, RemoteLinkFactory, RemoteLinkOptions } from '../../../src/acp/transport/remote';
import { stdioTransport } from '../../../src/acp/transport/stdio';
import { END_OF_STREAM_METHOD, type TransportHooks } from '../../../src/acp/transport/transport';
import type { Clock, TimerHandle } from '../../../src/common/clock';
import type { AgentRuntime, AgentStateChange } from '../../../src/process/agentRuntime';
import { MemoryAgent } from '../../helpers/memoryPeer';

interface FakeTimer {
  readonly at: number;
  readonly callback: () => void;
  readonly handle: TimerHandle;
}

/** Timers run only in {@link advance}; `now` moves only there. */
export class FakeClock implements Clock {
  private time = 1_700_000_000_000;
  private timers: FakeTimer[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const handle = {};
    this.timers.push({ at: this.time + ms, callback, handle });
    return handle;
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    this.timers = this.timers.filter((timer) => timer.handle !== handle);
  }

  /** The waits of the timers planned now, shortest first. */
  pending(): number[] {
    return this.timers.map((timer) => timer.at - this.time).sort((a, b) => a - b);
  }

  /** Moves the time on by `ms`, running each timer that falls due on the way, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.time = due.at;
      due.callback();
    }
    this.time = end;
  }
}

/** What one connect meets: an agent that answers `initialize` (optionally with extra fields), one that never answers, or a link that ends at once. */
export type LinkPlan = { readonly answer: Record<string, unknown> } | 'answer' | 'silent' | { readonly end: LinkEnd };

/** A link over in-memory streams; the test ends it with {@link drop}. */
export class FakeLink implements RemoteLink {
  readonly agent = new MemoryAgent();
  readonly peer: string;
  readonly ended: Promise<LinkEnd>;
  /** Resolves when the agent received `initialize`. */
  readonly initializeSeen: Promise<void>;
  closeCalls = 0;
  private settle!: (end: LinkEnd) => void;
  private settled = false;
  private seen!: () => void;

  constructor(
    readonly options: RemoteLinkOptions,
    plan: LinkPlan,
  ) {
    this.peer = options.peer;
    this.ended = new Promise((resolve) => (this.settle = resolve));
    this.initializeSeen = new Promise((resolve) => (this.seen = resolve));
    if (plan === 'silent') {
      this.agent.rpc.onRequest('initialize', () => {
        this.seen();
        return new Promise(() => undefined);
      });
    } else if (plan === 'answer' || 'answer' in plan) {
      const extra = plan === 'answer' ? {} : plan.answer;
      this.agent.rpc.onRequest('initialize', () => {
        this.seen();
        return { protocolVersion: 1, agentCapabilities: FAKE_CAPABILITIES, agentInfo: { name: 'box', version: '1.0.0' }, authMethods: [], ...extra };
      });
    } else {
      const end = plan.end;
      setImmediate(() => this.drop(end));
    }
  }

  open(hooks: TransportHooks) {
    const { reader, writer } = stdioTransport(this.agent.stdout, this.agent.stdin, { peer: this.peer }).open(hooks);
    const listen = reader.listen.bind(reader);
    // Sees the end-of-stream marker reach the connection (see dropAfterTheStreamEnded).
    reader.listen = (callback) =>
      listen((message) => {
        callback(message);
        if ((message as { method?: string }).method === END_OF_STREAM_METHOD) setImmediate(() => this.streamEnded());
      });
    return { reader, writer };
  }

  private streamEnded: () => void = () => undefined;

  /** The link ends: `ended` settles with `end`, then the agent's side of the streams ends. */
  drop(end: LinkEnd): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(end);
    this.agent.dispose();
  }

  /**
   * The agent's side ends first and `ended` settles a moment later, as a real link may do it (its reader ends with
   * the end-of-stream marker, which the connection takes at once, before anyone hears `ended`).
   */
  dropAfterTheStreamEnded(end: LinkEnd): void {
    if (this.settled) return;
    this.settled = true;
    // Once the connection took the marker (vscode-jsonrpc's queue runs on the immediates before ours).
    this.streamEnded = () => this.settle(end);
    this.agent.dispose();
  }

  close(): Promise<void> {
    this.closeCalls++;
    this.drop({ cause: 'stopped', reason: `${this.peer} was disconnected.`, retry: false });
    return Promise.resolve();
  }
}

const FAKE_CAPABILITIES = { loadSession: true, sessionCapabilities: { list: {}, resume: {} } };

/** Makes links by plan, in order (the last plan repeats); records every link and the kinds asked for. */
export class FakeLinks {
  readonly links: FakeLink[] = [];
  readonly kinds: string[] = [];
  private readonly plans: LinkPlan[];
  private waiters: Array<{ count: number; resolve: (link: FakeLink) => void }> = [];

  constructor(...plans: LinkPlan[]) {
    this.plans = plans.length > 0 ? plans : ['answer'];
  }

  readonly factory = (kind: string): RemoteLinkFactory => {
    this.kinds.push(kind);
    return (options) => {
      const plan = this.plans[Math.min(this.links.length, this.plans.length - 1)]!;
      const link = new FakeLink(options, plan);
      this.links.push(link);
      for (const waiter of this.waiters.filter((w) => w.count === this.links.length)) waiter.resolve(link);
      this.waiters = this.waiters.filter((w) => w.count !== this.links.length);
      return link;
    };
  };

  /** Resolves with the `count`-th link once it is made. */
  link(count: number): Promise<FakeLink> {
    const made = this.links[count - 1];
    if (made) return Promise.resolve(made);
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}

/** Every state change of `runtime`, and a way to wait for the next one that matches. */
export function watchStates(runtime: AgentRuntime): {
  readonly changes: AgentStateChange[];
  until(match: (change: AgentStateChange) => boolean): Promise<AgentStateChange>;
} {
  const changes: AgentStateChange[] = [];
  let waiters: Array<{ match: (change: AgentStateChange) => boolean; resolve: (change: AgentStateChange) => void }> = [];
  runtime.onDidChangeState((change) => {
    changes.push(change);
    const hit = waiters.filter((w) => w.match(change));
    waiters = waiters.filter((w) => !w.match(change));
    for (const waiter of hit) waiter.resolve(change);
  });
  return {
    changes,
    until: (match) => new Promise((resolve) => waiters.push({ match, resolve })),
  };
}
