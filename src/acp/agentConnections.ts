/**
 * The one place that chooses the protocol adapter for a new connection to an agent, for an agent process of ours
 * (`process/AgentProcess`) and for an agent behind a URL (`remote/RemoteAgent`) alike. The version is chosen from
 * the agent's `initialize` answer (`protocolVersion.ts`): with `protocol: 'v1'` the client offers v1 only (ACP v1,
 * `AcpConnection`); with `auto` it offers v2 and takes what the agent answers, on the same round trip (an agent
 * that speaks only v1 answers v1: see `AcpConnection.initializeOfferingV2`); with `v2` it refuses an agent that
 * answers v1. The owner gets the port's {@link AgentConnection} plus what only an owner does with it: initialize
 * it, close it, end it.
 */
import type { AgentCaps } from './capabilities';
import { AcpConnection, type AcpConnectionOptions, type InitializeOptions } from './connection';
import { ProtocolVersionError } from './errors';
import type {
  AgentCapability,
  AgentConnection,
  CancellationToken,
  Disposable,
  PermissionHandler,
  PromptBlock,
  ProtocolChoice,
  SessionSetupParams,
} from './port/agentConnection';

export type { ProtocolChoice } from './port/agentConnection';
import type { FileSystemHost, ServeTerminalsOptions, TerminalHost } from './port/client';
import type { TranscriptEvent } from './port/events';
import { V2Connection } from './v2/connection';
import { readV2Caps } from './v2/mapping';
import { PROTOCOL_V2 } from './v2/methods';

export type { InitializeOptions } from './connection';

/** The options of a new connection: its transport, log, message tap, how it explains the agent's errors, the version to offer. */
export interface AgentConnectionOptions extends AcpConnectionOptions {
  /** Default `v1`. */
  readonly protocol?: ProtocolChoice;
}

/** A connection as the runtime that owns it holds it. */
export interface OwnedAgentConnection extends AgentConnection {
  /** Negotiates version and capabilities; register what the client serves first (it is advertised from that). */
  initialize(options: InitializeOptions, token?: CancellationToken): Promise<AgentCaps>;
  /** Delivers what arrived, then ends the connection: outstanding requests fail with `reason`. */
  close(reason: string, drainTimeoutMs?: number): void;
  /** Ends the connection at once. */
  dispose(reason?: string): void;
}

export function createAgentConnection(options: AgentConnectionOptions): OwnedAgentConnection {
  const v1 = new AcpConnection(options);
  return options.protocol === undefined || options.protocol === 'v1' ? v1 : new NegotiatedConnection(v1, options.protocol);
}

/**
 * A connection whose version the agent's `initialize` answer decides: until then what is registered on it waits
 * (the permission and transcript handlers) or goes to v1 (the file system and terminals, which v1 advertises from
 * what is registered, and which v2 does not have: they are let go when the agent answers v2). Afterwards every
 * call goes to the adapter of the version chosen.
 */
class NegotiatedConnection implements OwnedAgentConnection {
  private active: AgentConnection | undefined;
  private v2: V2Connection | undefined;
  private transcript: { handler: (sessionId: string, event: TranscriptEvent) => void; registration?: Disposable } | undefined;
  private permissions: { handler: PermissionHandler; registration?: Disposable } | undefined;
  private readonly v1Only: Disposable[] = [];

  constructor(
    private readonly v1: AcpConnection,
    private readonly protocol: 'auto' | 'v2',
  ) {}

  async initialize(options: InitializeOptions, token?: CancellationToken): Promise<AgentCaps> {
    const negotiated = await this.v1.initializeOfferingV2(options, token);
    if (negotiated.version === 1) {
      if (this.protocol === 'v2') {
        const error = new ProtocolVersionError(this.v1.agentName, 1, PROTOCOL_V2);
        this.v1.dispose(error.message);
        throw error;
      }
      this.active = this.v1;
    } else {
      for (const registration of this.v1Only.splice(0)) registration.dispose();
      this.v2 = new V2Connection(this.v1.channel(), readV2Caps(negotiated.answer));
      this.active = this.v2;
    }
    if (this.transcript) this.transcript.registration = this.active.onTranscriptEvent(this.transcript.handler);
    if (this.permissions) this.permissions.registration = this.active.servePermissions(this.permissions.handler);
    return this.active.caps;
  }

  close(reason: string, drainTimeoutMs?: number): void {
    this.v1.close(reason, drainTimeoutMs);
  }

  dispose(reason?: string): void {
    this.v1.dispose(reason);
    this.v2?.dispose();
  }

  /** The adapter chosen, or v1 (the peer) for what is the same before the answer. */
  private get current(): AgentConnection {
    return this.active ?? this.v1;
  }

  get agentName(): string {
    return this.v1.agentName;
  }
  get caps(): AgentCaps {
    return this.current.caps;
  }
  get isClosed(): boolean {
    return this.v1.isClosed;
  }
  get isRemote(): boolean {
    return this.v1.isRemote;
  }
  get recentStderr(): readonly string[] {
    return this.v1.recentStderr;
  }
  get onDidClose(): AgentConnection['onDidClose'] {
    return this.v1.onDidClose;
  }
  get onProtocolError(): AgentConnection['onProtocolError'] {
    return this.v1.onProtocolError;
  }

  onTranscriptEvent(handler: (sessionId: string, event: TranscriptEvent) => void): Disposable {
    if (this.active) return this.active.onTranscriptEvent(handler);
    const pending: { handler: typeof handler; registration?: Disposable } = { handler };
    this.transcript = pending;
    return { dispose: () => pending.registration?.dispose() };
  }

  servePermissions(handler: PermissionHandler): Disposable {
    if (this.active) return this.active.servePermissions(handler);
    const pending: { handler: PermissionHandler; registration?: Disposable } = { handler };
    this.permissions = pending;
    return { dispose: () => pending.registration?.dispose() };
  }

  serveFileSystem(host: FileSystemHost): Disposable {
    if (this.active) return this.active.serveFileSystem(host);
    const registration = this.v1.serveFileSystem(host);
    this.v1Only.push(registration);
    return registration;
  }

  serveTerminals(host: TerminalHost, options?: ServeTerminalsOptions): Disposable {
    if (this.active) return this.active.serveTerminals(host, options);
    const registration = this.v1.serveTerminals(host, options);
    this.v1Only.push(registration);
    return registration;
  }

  newSession(params: SessionSetupParams, token?: CancellationToken): ReturnType<AgentConnection['newSession']> {
    return this.current.newSession(params, token);
  }
  startTurn(
    params: { readonly sessionId: string; readonly prompt: readonly PromptBlock[] },
    token?: CancellationToken,
  ): ReturnType<AgentConnection['startTurn']> {
    return this.current.startTurn(params, token);
  }
  cancel(sessionId: string): Promise<void> {
    return this.current.cancel(sessionId);
  }
  authenticate(methodId: string, token?: CancellationToken): Promise<void> {
    return this.current.authenticate(methodId, token);
  }
  logout(token?: CancellationToken): Promise<void> {
    return this.current.logout(token);
  }
  lister(): ReturnType<AgentConnection['lister']> {
    return this.current.lister();
  }
  loader(): ReturnType<AgentConnection['loader']> {
    return this.current.loader();
  }
  resumer(): ReturnType<AgentConnection['resumer']> {
    return this.current.resumer();
  }
  forker(): ReturnType<AgentConnection['forker']> {
    return this.current.forker();
  }
  closer(): ReturnType<AgentConnection['closer']> {
    return this.current.closer();
  }
  deleter(): ReturnType<AgentConnection['deleter']> {
    return this.current.deleter();
  }
  titles(): ReturnType<AgentConnection['titles']> {
    return this.current.titles();
  }
  settings(sessionId: string): ReturnType<AgentConnection['settings']> {
    return this.current.settings(sessionId);
  }
  unsupported(capability: AgentCapability, sessionId?: string): Error {
    return this.current.unsupported(capability, sessionId);
  }
}
