/**
 * One agent that runs elsewhere, reached over a {@link RemoteLink} (WebSocket, Streamable HTTP, or a Sandbox Agent
 * server's ACP endpoint): the remote counterpart of `AgentProcess`, with the same states, the same `initialize`
 * time limit and failure words, and the same `stop`/`restart`/`dispose`. Where a process is restarted after a
 * crash, a remote agent whose link drops is reconnected: the drop is said in words, every pending request fails
 * with the link's reason, and new attempts follow with a growing wait ({@link Backoff}) until one succeeds
 * (`onDidRestart` with the new connection: the sessions layer reopens the chats), the link says retrying cannot
 * help (a refused token), or the attempts are used up (`failed`, "Restart … to try again").
 */
import * as l10n from '@vscode/l10n';
import { Emitter, type Disposable, type Event } from 'vscode-jsonrpc/node';
import type { AgentCaps, ClientFeatureOptions } from '../acp/capabilities';
import { createAgentConnection, type OwnedAgentConnection } from '../acp/agentConnections';
import type { AgentConnection, ClientInfo } from '../acp/port/agentConnection';
import {
  checkRemoteEndpoint,
  displayUrl,
  type LinkEnd,
  type LinkEndCause,
  type RemoteCredentials,
  type RemoteEndpoint,
  type RemoteKind,
  type RemoteLink,
  type RemoteLinkFactory,
} from '../acp/transport/remote';
import type { AcpTransport, MessageTap } from '../acp/transport/transport';
import { systemClock, type Clock, type TimerHandle } from '../common/clock';
import { silentLogger, type Logger } from '../common/logger';
import type { AgentRuntime, AgentState, AgentStateChange, RemoteAgentInfo } from '../process/agentRuntime';
import { initializeFailureMessage, initializeWithin, InitializeTimeoutError } from '../acp/initialize';
import { AgentStartError } from '../process/startFailure';
import { Backoff, type BackoffOptions } from './backoff';
import { errorMessage } from '../common/errors';

export interface RemoteAgentOptions {
  /** The agent's display name ("Box opencode"). */
  readonly name: string;
  readonly endpoint: RemoteEndpoint;
  /** Read at every connect (a token set meanwhile applies to the next attempt); never logged. */
  readonly credentials: () => Promise<RemoteCredentials>;
  /** The link maker for a kind of endpoint. */
  readonly linkFactory: (kind: RemoteKind) => RemoteLinkFactory;
  /** What the connection talks through, made from the link (the path mapping wraps it); default the link itself. */
  readonly wrapTransport?: (link: RemoteLink) => AcpTransport;
  readonly logger?: Logger;
  readonly clientInfo: ClientInfo;
  readonly features?: ClientFeatureOptions;
  /** Registers agent → client handlers on every new connection, before `initialize`. */
  readonly registerHandlers?: (connection: AgentConnection) => void;
  /** Largest message in bytes, both directions (the link's default when absent). */
  readonly maxMessageBytes?: number;
  /** How long the link's connect may take (the link's default when absent). */
  readonly connectTimeoutMs?: number;
  readonly tap?: MessageTap;
  /** How long connecting and `initialize` may take together. Default 60 s. */
  readonly initializeTimeoutMs?: number;
  /** The waits between reconnect attempts and when to give up. */
  readonly backoff?: BackoffOptions;
  /** Timers and the time (tests drive them by hand). */
  readonly clock?: Clock;
}

/** How long the connection waits, once the link's messages ended, for the link to say why before closing with a generic reason. */
const LINK_END_GRACE_MS = 500;

/** The command that sets a remote agent's token, as the link's words for a refused token name it. */
const SET_TOKEN_COMMAND = 'ACP: Set Remote Agent Token…';

/** Why a connect did not give a running connection. */
class ConnectFailure extends Error {
  constructor(
    message: string,
    /** Whether another attempt may help. */
    readonly retry: boolean,
    readonly linkCause?: LinkEndCause,
    /** It was stopped (stop, restart, dispose) while connecting: the state is already settled. */
    readonly stopped = false,
  ) {
    super(message);
  }
}

/** An agent behind a URL and its current connection. */
export class RemoteAgent implements Disposable, AgentRuntime {
  private current: OwnedAgentConnection | undefined;
  private link: RemoteLink | undefined;
  private starting: Promise<OwnedAgentConnection> | undefined;
  private stopping: Promise<void> | undefined;
  private stateValue: AgentState = 'stopped';
  /** Grows at each stop: a connect that started before a stop gives up as soon as it notices. */
  private generation = 0;
  private lastStopReason = '';
  /** The last connect or drop ended because the server refused the credentials (until the next attempt). */
  private credentialsRefused = false;
  private reconnect: { readonly timer: TimerHandle; readonly at: number } | undefined;
  private readonly backoff: Backoff;
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** Links we closed: their end is expected, not a drop. */
  private readonly closing = new WeakMap<RemoteLink, Promise<void>>();
  private readonly stateEmitter = new Emitter<AgentStateChange>();
  private readonly restartEmitter = new Emitter<OwnedAgentConnection>();

  readonly onDidChangeState: Event<AgentStateChange> = this.stateEmitter.event;
  /** A new connection after a reconnect (sessions of the old one are gone: reopen them). */
  readonly onDidRestart: Event<OwnedAgentConnection> = this.restartEmitter.event;

  constructor(private readonly options: RemoteAgentOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.backoff = new Backoff(options.backoff);
  }

  get name(): string {
    return this.options.name;
  }

  get state(): AgentState {
    return this.stateValue;
  }

  get connection(): OwnedAgentConnection | undefined {
    return this.stateValue === 'running' ? this.current : undefined;
  }

  get caps(): AgentCaps | undefined {
    return this.connection?.caps;
  }

  /** A remote agent is never confined by us (its server decides where it runs). */
  get confinement(): undefined {
    return undefined;
  }

  /** A remote agent's stderr stays on its server. */
  get recentStderr(): readonly string[] {
    return [];
  }

  get pid(): undefined {
    return undefined;
  }

  get remote(): RemoteAgentInfo {
    const { url, kind, sandboxAgent } = this.options.endpoint;
    return {
      url,
      kind,
      ...(sandboxAgent !== undefined ? { sandboxAgent } : {}),
      ...(this.reconnect ? { reconnectAt: this.reconnect.at } : {}),
      ...(this.credentialsRefused ? { credentialsRefused: true } : {}),
    };
  }

  /**
   * Connects (or joins a connect in progress) and resolves with the initialized connection. While a reconnect
   * is planned, it is made now (a success fires `onDidRestart`, as a planned one would).
   */
  start(): Promise<OwnedAgentConnection> {
    if (this.stateValue === 'running' && this.current) return Promise.resolve(this.current);
    if (this.starting) return this.starting;
    if (this.reconnect) return this.reconnectNow();
    return this.run('start');
  }

  /** Closes the link (and cancels a planned reconnect). Outstanding requests fail with `reason`. */
  stop(reason = l10n.t('{0} was stopped.', this.name)): Promise<void> {
    if (this.stopping) return this.stopping;
    this.generation++;
    this.lastStopReason = reason;
    // A connect in progress gives up (it notices the generation); a start after this stop makes a new one.
    this.starting = undefined;
    const wasWaiting = this.cancelReconnect();
    const link = this.link;
    const connection = this.current;
    if (!link) {
      this.current = undefined;
      // Waiting to reconnect, the state said "Reconnecting in …": say it no longer does.
      if (wasWaiting) this.setState({ state: 'stopped', message: reason });
      else if (this.stateValue !== 'failed') this.setState({ state: 'stopped' });
      return Promise.resolve();
    }
    this.setState({ state: 'stopping' });
    connection?.dispose(reason);
    const stopped = this.closeLink(link).then(() => {
      if (this.link === link) {
        this.link = undefined;
        this.current = undefined;
      }
      this.setState({ state: 'stopped' });
    });
    const done = stopped.finally(() => {
      if (this.stopping === done) this.stopping = undefined;
    });
    this.stopping = done;
    return done;
  }

  /** Stops (if needed) and connects again. */
  async restart(): Promise<OwnedAgentConnection> {
    await this.stop(l10n.t('{0} is restarting.', this.name));
    return this.start();
  }

  /** Stops it for good; settles when the link is closed. */
  dispose(): Promise<void> {
    const done = this.stop(l10n.t('{0} was stopped because ACP Workspace is shutting down.', this.name));
    return done.finally(() => {
      this.stateEmitter.dispose();
      this.restartEmitter.dispose();
    });
  }

  // ---- internals ----------------------------------------------------------------------------------

  /** One connect, as a start asked for or as a reconnect; settles the state either way. */
  private run(mode: 'start' | 'reconnect'): Promise<OwnedAgentConnection> {
    const attempt = (this.stopping ?? Promise.resolve()).then(() => this.attempt(mode));
    this.starting = attempt;
    const clear = () => {
      if (this.starting === attempt) this.starting = undefined;
    };
    attempt.then(clear, clear);
    return attempt;
  }

  private async attempt(mode: 'start' | 'reconnect'): Promise<OwnedAgentConnection> {
    const generation = this.generation;
    this.credentialsRefused = false;
    this.setState({ state: 'starting' });
    let connection: OwnedAgentConnection;
    try {
      connection = await this.connect(generation);
    } catch (error) {
      const failure = error instanceof ConnectFailure ? error : new ConnectFailure(initializeFailureMessage(error), false);
      if (failure.stopped || generation !== this.generation) throw this.startError(this.lastStopReason);
      // Settled: a start() made on hearing the new state makes a new attempt instead of joining this one.
      this.starting = undefined;
      if (mode === 'reconnect' && failure.retry) {
        this.planReconnect(failure.message, 'attempt');
        throw this.startError(failure.message);
      }
      this.credentialsRefused = failure.linkCause === 'auth';
      const message =
        mode === 'reconnect'
          ? l10n.t(
              'Could not reconnect to {0} ({1}): {2}. {3}',
              this.name,
              this.where,
              withoutStop(failure.message),
              this.nextStep(failure.linkCause, failure.message),
            )
          : failure.linkCause === 'auth'
            ? `${sentence(failure.message)} ${this.nextStep('auth', failure.message)}`
            : failure.message;
      this.backoff.reset();
      this.setState({ state: 'failed', message });
      throw this.startError(message);
    }
    if (generation !== this.generation) throw this.startError(this.lastStopReason); // stopped as it answered
    this.starting = undefined;
    this.backoff.reset();
    this.setState({ state: 'running' });
    if (mode === 'reconnect') {
      this.logger.info(`Reconnected to ${this.name} at ${this.where}.`);
      this.restartEmitter.fire(connection);
    }
    return connection;
  }

  /** Opens a link and initializes a connection over it; throws a {@link ConnectFailure}. */
  private async connect(generation: number): Promise<OwnedAgentConnection> {
    const { endpoint, name } = this.options;
    const url = checkRemoteEndpoint(endpoint);
    if (url instanceof Error) throw new ConnectFailure(l10n.t('{0} was not connected: {1}', name, url.message), false);
    let credentials: RemoteCredentials;
    try {
      credentials = await this.options.credentials();
    } catch (error) {
      throw new ConnectFailure(l10n.t('{0} was not connected: its token could not be read: {1}', name, errorMessage(error)), false);
    }
    if (generation !== this.generation) throw new ConnectFailure(this.lastStopReason, false, undefined, true);

    this.logger.info(`Connecting to ${name} at ${this.where} (${endpoint.kind}${endpoint.sandboxAgent ? `, agent ${endpoint.sandboxAgent}` : ''}).`);
    const link = this.options.linkFactory(endpoint.kind)({
      peer: name,
      endpoint,
      credentials,
      logger: this.logger,
      ...(this.options.maxMessageBytes !== undefined ? { maxMessageBytes: this.options.maxMessageBytes } : {}),
      ...(this.options.connectTimeoutMs !== undefined ? { connectTimeoutMs: this.options.connectTimeoutMs } : {}),
    });
    const connection = createAgentConnection({
      transport: this.options.wrapTransport?.(link) ?? link,
      logger: this.logger,
      tap: this.options.tap,
      closeGraceMs: LINK_END_GRACE_MS,
      remote: true,
    });
    this.link = link;
    this.current = connection;
    let ended: LinkEnd | undefined;
    void link.ended.then((end) => {
      ended = end;
      // The drop is said (and a reconnect planned) before the connection closes: whoever hears the close (a chat, its
      // notification) can tell that the agent is reconnecting.
      this.onLinkEnded(link, end);
      // Pending requests fail with the link's reason, once what arrived before the end is delivered.
      connection.close(end.reason);
    });
    this.options.registerHandlers?.(connection);

    try {
      await initializeWithin(
        connection,
        { clientInfo: this.options.clientInfo, features: this.options.features },
        { agent: name, timeoutMs: this.options.initializeTimeoutMs ?? 60_000, clock: this.clock },
      );
      if (ended) throw new Error(ended.reason);
    } catch (error) {
      const end = ended;
      const message = end?.reason ?? initializeFailureMessage(error);
      const stopped = generation !== this.generation;
      connection.dispose(message);
      await this.closeLink(link);
      if (this.link === link) {
        this.link = undefined;
        this.current = undefined;
      }
      if (stopped) throw new ConnectFailure(this.lastStopReason, false, undefined, true);
      this.logger.warn(`Connecting to ${name} at ${this.where} failed: ${message}`);
      throw new ConnectFailure(message, end ? end.retry : error instanceof InitializeTimeoutError, end?.cause);
    }
    return connection;
  }

  /** The link is gone. A drop while running is reported and a reconnect planned; during a connect, `connect` handles it. */
  private onLinkEnded(link: RemoteLink, end: LinkEnd): void {
    if (this.closing.has(link) || this.link !== link || this.stateValue !== 'running') return;
    this.link = undefined;
    this.current = undefined;
    this.logger.warn(`The link to ${this.name} at ${this.where} ended (${end.cause}): ${end.reason}`);
    if (!end.retry) {
      this.credentialsRefused = end.cause === 'auth';
      this.setState({
        state: 'failed',
        message: l10n.t('Lost the connection to {0} ({1}): {2}. {3}', this.name, this.where, withoutStop(end.reason), this.nextStep(end.cause, end.reason)),
      });
      return;
    }
    this.backoff.begin(this.clock.now());
    this.planReconnect(end.reason, 'drop');
  }

  /** Waits before the next attempt, saying so; or gives up when the attempts are used up. */
  private planReconnect(reason: string, after: 'drop' | 'attempt'): void {
    const wait = this.backoff.next(this.clock.now());
    if (wait === undefined) {
      const attempts = this.backoff.attempts;
      this.backoff.reset();
      this.setState({
        state: 'failed',
        message: l10n.t(
          'Lost the connection to {0} ({1}): {2}. Gave up after {3} attempts to reconnect. Restart {0} to try again.',
          this.name,
          this.where,
          withoutStop(reason),
          attempts,
        ),
      });
      return;
    }
    const seconds = Math.max(1, Math.round(wait / 1000));
    const timer = this.clock.setTimeout(() => {
      if (this.reconnect?.timer !== timer) return;
      this.reconnectNow().catch(() => undefined); // the state says what happened
    }, wait);
    this.reconnect = { timer, at: this.clock.now() + wait };
    this.logger.info(`Reconnecting to ${this.name} in ${wait} ms (attempt ${this.backoff.attempts} of ${this.backoff.maxAttempts}).`);
    this.setState({
      state: 'stopped',
      message:
        after === 'drop'
          ? l10n.t('Lost the connection to {0} ({1}): {2}. Reconnecting in {3} s…', this.name, this.where, withoutStop(reason), seconds)
          : l10n.t(
              'Could not reconnect to {0} ({1}): {2}. Reconnecting in {3} s (attempt {4} of {5})…',
              this.name,
              this.where,
              withoutStop(reason),
              seconds,
              this.backoff.attempts,
              this.backoff.maxAttempts,
            ),
    });
  }

  private reconnectNow(): Promise<OwnedAgentConnection> {
    this.cancelReconnect();
    return this.run('reconnect');
  }

  /** Cancels a planned reconnect; says whether there was one. */
  private cancelReconnect(): boolean {
    if (!this.reconnect) return false;
    this.clock.clearTimeout(this.reconnect.timer);
    this.reconnect = undefined;
    return true;
  }

  /** Closes a link once (its end is then expected); settles when it is closed. */
  private closeLink(link: RemoteLink): Promise<void> {
    let closed = this.closing.get(link);
    if (!closed) {
      closed = link.close().catch((error: unknown) => this.logger.warn(`Closing the link to ${this.name}: ${errorMessage(error)}`));
      this.closing.set(link, closed);
    }
    return closed;
  }

  /** A failure to connect, saying it is a remote agent's and whether its credentials were refused. */
  private startError(message: string): AgentStartError {
    return new AgentStartError(this.name, message, [], { credentialsRefused: this.credentialsRefused });
  }

  /** What the user can do after a failure of this cause (`reason`: the failure's words, which may already name the command). */
  private nextStep(cause: LinkEndCause | undefined, reason: string): string {
    if (cause !== 'auth') return l10n.t('Restart {0} to try again.', this.name);
    return reason.includes(SET_TOKEN_COMMAND)
      ? l10n.t('Once the token is set, start {0} again.', this.name)
      : l10n.t('Set its token with "ACP: Set Remote Agent Token…", then start {0} again.', this.name);
  }

  /** The URL for messages and the log (no query: it may carry a token). */
  private get where(): string {
    return displayUrl(this.options.endpoint.url);
  }

  private setState(change: AgentStateChange): void {
    if (this.stateValue === change.state && change.message === undefined) return;
    this.stateValue = change.state;
    this.stateEmitter.fire(change);
  }
}

/** A reason without its final full stop, to go inside a sentence. */
function withoutStop(text: string): string {
  return text.trim().replace(/\.+$/, '');
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
