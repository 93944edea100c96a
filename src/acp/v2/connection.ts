/**
 * The ACP v2 adapter behind the port's {@link AgentConnection}: the same JSON-RPC peer as v1 (the connection that
 * negotiated the version hands over its {@link PeerChannel}), v2's methods and v2's turn.
 *
 * What differs from v1, handled here and nowhere above `acp/`:
 * - A turn: `session/prompt`'s answer only accepts the prompt; the agent's `state_update`s move the turn
 *   (`running`, `requires_action` while it waits on the user, `idle` with the stop reason, which ends it).
 * - Reopening: v2 has no `session/load`; `session/resume` with `replayFrom: {type: "start"}` replays the history
 *   (the port's loader), without it only resumes (the port's resumer). list, resume and close are baseline.
 * - No client file system, no client terminals, no modes: serving them registers nothing (the agent reads and
 *   writes files and runs commands itself).
 * - Sign-in is `auth/login`; config options are keyed by `configId`.
 */
import type { CancellationToken, Disposable } from 'vscode-jsonrpc/node';
import type { Event } from '../../common/events';
import { CapabilityError, ConnectionClosedError, SessionNotFoundError } from '../errors';
import type {
  AgentCapability,
  AgentCaps,
  AgentConnection,
  PermissionHandler,
  PromptBlock,
  SessionCloser,
  SessionDeleter,
  SessionForker,
  SessionLister,
  SessionLoader,
  SessionSettings,
  SessionSetupAnswer,
  SessionSetupParams,
  SessionTitles,
} from '../port/agentConnection';
import type { FileSystemHost, ServeTerminalsOptions, TerminalHost } from '../port/client';
import type { TranscriptEvent } from '../port/events';
import { TurnRecord, type Turn } from '../port/turn';
import type { NotificationDefinition, ParamsOf, RequestDefinition, ResultOf } from '../schema';
import { listedSessionV2, mcpServersV2, permissionRequestV2, permissionResponseV2, setupAnswerV2 } from './mapping';
import {
  LoginV2,
  LogoutV2,
  RequestPermissionV2,
  SessionCancelV2,
  SessionCloseV2,
  SessionDeleteV2,
  SessionForkV2,
  SessionListV2,
  SessionNewV2,
  SessionPromptV2,
  SessionResumeV2,
  SessionSetConfigOptionV2,
  SessionSetTitleV2,
  SessionUpdateV2,
  ToolCallCancelV2,
} from './methods';
import { ToolCallUpdate } from './schema';
import { readV2SessionUpdate, v2ConfigOptions, v2ToolCallPatch, type V2TurnSignal } from './sessionUpdates';

/** What the v2 adapter needs of the JSON-RPC peer that negotiated the version (`AcpConnection.channel`). */
export interface PeerChannel {
  readonly agentName: string;
  readonly isClosed: boolean;
  readonly isRemote: boolean;
  readonly recentStderr: readonly string[];
  readonly onDidClose: Event<string>;
  readonly onProtocolError: Event<Error>;
  request<D extends RequestDefinition>(definition: D, params: ParamsOf<D>, token?: CancellationToken): Promise<ResultOf<D>>;
  notify<D extends NotificationDefinition>(definition: D, params: ParamsOf<D>): Promise<void>;
  onRequest<D extends RequestDefinition>(definition: D, handler: (params: ParamsOf<D>, token: CancellationToken) => Promise<ResultOf<D>>): Disposable;
  onNotification<D extends NotificationDefinition>(definition: D, handler: (params: ParamsOf<D>) => void): Disposable;
  reportProtocolError(error: Error): void;
}

/** The words of a {@link CapabilityError} for a v2 call the agent did not advertise. */
const CAPABILITY_WORDS: Record<Exclude<AgentCapability, 'modes' | 'models' | 'configOptions'>, readonly [what: string, capability: string]> = {
  list: ['listing sessions (session/list)', 'session capabilities'],
  load: ['reopening sessions with their history (session/resume with replayFrom)', 'session capabilities'],
  resume: ['resuming sessions (session/resume)', 'session capabilities'],
  fork: ['forking sessions (session/fork)', 'capabilities.session.fork'],
  close: ['closing sessions (session/close)', 'session capabilities'],
  delete: ['deleting sessions (session/delete)', 'capabilities.session.delete'],
  setTitle: ['renaming sessions (session/set_title)', 'capabilities.session.setTitle'],
};

export class V2Connection implements AgentConnection {
  /** The turn running in each session. */
  private readonly turns = new Map<string, TurnRecord>();
  /** Sessions whose setup answer offered config options. */
  private readonly withConfigOptions = new Set<string>();
  private readonly subscriptions: Disposable[] = [];
  private transcriptHandler: ((sessionId: string, event: TranscriptEvent) => void) | undefined;

  constructor(
    private readonly channel: PeerChannel,
    readonly caps: AgentCaps,
  ) {
    // A turn the agent never ended ends with the connection.
    this.subscriptions.push(
      channel.onDidClose((reason) => {
        for (const turn of this.turns.values())
          turn.finish({ reason: 'agentGone', error: new ConnectionClosedError(channel.agentName, 'session/prompt', reason) });
        this.turns.clear();
      }),
      channel.onNotification(SessionUpdateV2, (params) => this.sessionUpdate(params)),
    );
  }

  get agentName(): string {
    return this.channel.agentName;
  }
  get isClosed(): boolean {
    return this.channel.isClosed;
  }
  get isRemote(): boolean {
    return this.channel.isRemote;
  }
  get recentStderr(): readonly string[] {
    return this.channel.recentStderr;
  }
  get onDidClose(): Event<string> {
    return this.channel.onDidClose;
  }
  get onProtocolError(): Event<Error> {
    return this.channel.onProtocolError;
  }

  /** v2's `session/update` as transcript events (state updates move the turns whether or not a handler is set). One handler per connection. */
  onTranscriptEvent(handler: (sessionId: string, event: TranscriptEvent) => void): Disposable {
    this.transcriptHandler = handler;
    return {
      dispose: () => {
        if (this.transcriptHandler === handler) this.transcriptHandler = undefined;
      },
    };
  }

  /** v2's permission request; its session's turn waits while it is open. */
  servePermissions(handler: PermissionHandler): Disposable {
    return this.channel.onRequest(RequestPermissionV2, async (params, token) => {
      const turn = this.turns.get(params.sessionId);
      turn?.waitStarted();
      // The subject's tool call is applied like a tool_call_update before the user is asked (the schema says so).
      const toolCall = params.subject?.type === 'tool_call' ? ToolCallUpdate.safeParse(params.subject.toolCall) : undefined;
      if (toolCall?.success) this.transcriptHandler?.(params.sessionId, { type: 'toolCallUpsert', call: v2ToolCallPatch(toolCall.data) });
      try {
        return permissionResponseV2(await handler(permissionRequestV2(params), token));
      } finally {
        turn?.waitEnded();
      }
    });
  }

  /** v2 has no client file system: the agent reads and writes files itself. Nothing is registered. */
  serveFileSystem(_host: FileSystemHost): Disposable {
    return { dispose: () => undefined };
  }

  /** v2 has no client terminals: the agent runs commands itself (shown through `terminal_update`). */
  serveTerminals(_host: TerminalHost, _options?: ServeTerminalsOptions): Disposable {
    return { dispose: () => undefined };
  }

  async newSession(params: SessionSetupParams, token?: CancellationToken): Promise<SessionSetupAnswer> {
    const result = await this.channel.request(SessionNewV2, this.setup(params), token);
    return this.remember(result.sessionId, setupAnswerV2(result.sessionId, result));
  }

  /**
   * Starts a prompt turn: `session/prompt`'s answer accepts it; the agent's state updates move it and end it.
   * The turn never rejects: a refused prompt ends it `failed`, a closed connection `agentGone`.
   */
  startTurn(params: { readonly sessionId: string; readonly prompt: readonly PromptBlock[] }, token?: CancellationToken): Turn {
    const turn = new TurnRecord(params.sessionId);
    this.turns.set(params.sessionId, turn);
    for (const block of params.prompt) {
      const missing =
        block.type === 'image' && !this.caps.prompt.image
          ? 'images in prompts'
          : block.type === 'audio' && !this.caps.prompt.audio
            ? 'audio in prompts'
            : block.type === 'resource' && !this.caps.prompt.embeddedContext
              ? 'embedded file contents in prompts'
              : undefined;
      if (missing) {
        this.forget(params.sessionId, turn);
        turn.finish({ reason: 'failed', error: new CapabilityError(this.agentName, missing, 'capabilities.session.prompt') });
        return turn;
      }
    }
    const prompt = params.prompt.map((block) => (block.type === 'resource' ? { type: 'resource', resource: { ...block.resource } } : { ...block }));
    this.channel.request(SessionPromptV2, { sessionId: params.sessionId, prompt }, token).then(
      // The prompt's id: a user message with it is the prompt the chat shows already (its echo).
      (answer) => {
        if (answer.messageId) this.transcriptHandler?.(params.sessionId, { type: 'promptAccepted', messageId: answer.messageId });
      },
      (error: unknown) => {
        this.forget(params.sessionId, turn);
        turn.finish(error instanceof ConnectionClosedError ? { reason: 'agentGone', error } : { reason: 'failed', error });
      },
    );
    return turn;
  }

  async cancel(sessionId: string): Promise<void> {
    await this.channel.notify(SessionCancelV2, { sessionId });
  }

  /** Cancels one tool call of a session (v2 `tool_call/cancel`). */
  async cancelToolCall(sessionId: string, toolCallId: string, token?: CancellationToken): Promise<void> {
    await this.channel.request(ToolCallCancelV2, { sessionId, toolCallId }, token);
  }

  async authenticate(methodId: string, token?: CancellationToken): Promise<void> {
    const method = this.caps.authMethods.find((m) => m.type !== 'unknown' && m.id === methodId);
    if (!method) throw new CapabilityError(this.agentName, `the sign-in method "${methodId}"`, 'it in authMethods');
    if (method.type === 'terminal')
      throw new Error(`The sign-in method "${methodId}" of ${this.agentName} runs in a terminal; it is never sent to auth/login.`);
    await this.channel.request(LoginV2, { methodId }, token);
  }

  async logout(token?: CancellationToken): Promise<void> {
    if (!this.caps.auth.logout) throw new CapabilityError(this.agentName, 'logging out', 'capabilities.auth.logout');
    await this.channel.request(LogoutV2, {}, token);
  }

  lister(): SessionLister {
    return {
      listSessions: async (params, token) => {
        const page = await this.channel.request(
          SessionListV2,
          { ...(params.cwd !== undefined ? { cwd: params.cwd } : {}), ...(params.cursor !== undefined ? { cursor: params.cursor } : {}) },
          token,
        );
        return { sessions: page.sessions.map(listedSessionV2), ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
      },
    };
  }

  /** v2 reopens with the history replayed through `session/resume` with `replayFrom`. */
  loader(): SessionLoader {
    return { reopen: (sessionId, params, token) => this.resume(sessionId, params, true, token) };
  }

  resumer(): SessionLoader {
    return { reopen: (sessionId, params, token) => this.resume(sessionId, params, false, token) };
  }

  forker(): SessionForker | undefined {
    if (!this.caps.sessions.fork) return undefined;
    return {
      forkSession: async (sessionId, params, token) => {
        const result = await this.channel.request(SessionForkV2, { sessionId, ...this.setup(params) }, token);
        return this.remember(result.sessionId, setupAnswerV2(result.sessionId, result));
      },
    };
  }

  closer(): SessionCloser {
    return {
      closeSession: async (sessionId, token) => {
        await this.ignoringNotFound(() => this.channel.request(SessionCloseV2, { sessionId }, token));
        this.withConfigOptions.delete(sessionId);
      },
    };
  }

  deleter(): SessionDeleter | undefined {
    if (!this.caps.sessions.delete) return undefined;
    return {
      deleteSession: async (sessionId, token) => {
        await this.ignoringNotFound(() => this.channel.request(SessionDeleteV2, { sessionId }, token));
        this.withConfigOptions.delete(sessionId);
      },
    };
  }

  titles(): SessionTitles | undefined {
    if (!this.caps.sessions.setTitle) return undefined;
    return {
      setSessionTitle: async (sessionId, title, token) => {
        await this.channel.request(SessionSetTitleV2, { sessionId, title }, token);
      },
    };
  }

  /** v2 has config options only (no modes, no separate models). */
  settings(sessionId: string): SessionSettings | undefined {
    if (!this.withConfigOptions.has(sessionId)) return undefined;
    return {
      modes: false,
      models: false,
      configOptions: true,
      setMode: () => Promise.reject(this.unsupported('modes', sessionId)),
      setModel: () => Promise.reject(this.unsupported('models', sessionId)),
      setConfigOption: async (configId, value, token) => {
        const params = typeof value === 'boolean' ? { sessionId, configId, type: 'boolean' as const, value } : { sessionId, configId, value };
        return v2ConfigOptions((await this.channel.request(SessionSetConfigOptionV2, params, token)).configOptions);
      },
    };
  }

  unsupported(capability: AgentCapability, sessionId?: string): CapabilityError {
    if (capability === 'modes' || capability === 'models' || capability === 'configOptions') {
      const what = capability === 'configOptions' ? 'config options' : capability;
      return new CapabilityError(
        this.agentName,
        `${what} for session ${sessionId}`,
        capability === 'configOptions' ? 'configOptions in its session setup answer' : `${capability} (ACP v2 has none)`,
      );
    }
    const [what, name] = CAPABILITY_WORDS[capability];
    return new CapabilityError(this.agentName, what, name);
  }

  dispose(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
  }

  // ---- internals ----------------------------------------------------------------------------------

  private sessionUpdate(params: unknown): void {
    const read = readV2SessionUpdate(params);
    if (!read.ok) {
      this.channel.reportProtocolError(new Error(`${this.agentName} sent a session/update this client cannot read: ${read.error.message}`));
      return;
    }
    const turn = this.turns.get(read.sessionId);
    for (const item of read.reads) {
      if (item.kind === 'transcript') {
        turn?.heard();
        this.transcriptHandler?.(read.sessionId, item.event);
      } else if (item.kind === 'turn') {
        if (turn) this.moveTurn(read.sessionId, turn, item.signal);
      }
    }
  }

  private async resume(sessionId: string, params: SessionSetupParams, replay: boolean, token?: CancellationToken): Promise<SessionSetupAnswer> {
    const result = await this.channel.request(
      SessionResumeV2,
      { sessionId, ...this.setup(params), ...(replay ? { replayFrom: { type: 'start' as const } } : {}) },
      token,
    );
    return this.remember(sessionId, setupAnswerV2(sessionId, result));
  }

  private setup(params: SessionSetupParams): { cwd: string; additionalDirectories?: string[]; mcpServers: ReturnType<typeof mcpServersV2> } {
    if (params.additionalDirectories !== undefined && params.additionalDirectories.length > 0 && !this.caps.sessions.additionalDirectories) {
      throw new CapabilityError(this.agentName, 'additional workspace folders (additionalDirectories)', 'capabilities.session.additionalDirectories');
    }
    return {
      cwd: params.cwd,
      ...(params.additionalDirectories !== undefined ? { additionalDirectories: [...params.additionalDirectories] } : {}),
      mcpServers: mcpServersV2(params.mcpServers ?? []),
    };
  }

  private remember(sessionId: string, answer: SessionSetupAnswer): SessionSetupAnswer {
    if (answer.configOptions !== undefined) this.withConfigOptions.add(sessionId);
    else this.withConfigOptions.delete(sessionId);
    return answer;
  }

  private moveTurn(sessionId: string, turn: TurnRecord, signal: V2TurnSignal): void {
    switch (signal.state) {
      case 'running':
        turn.heard();
        turn.waitEnded();
        return;
      case 'requires_action':
        turn.heard();
        turn.waitStarted();
        return;
      case 'idle':
        this.forget(sessionId, turn);
        turn.finish({ reason: 'stopped', stopReason: signal.stopReason ?? 'end_turn' });
        return;
      case 'unknown':
        turn.heard();
        return;
    }
  }

  private forget(sessionId: string, turn: TurnRecord): void {
    if (this.turns.get(sessionId) === turn) this.turns.delete(sessionId);
  }

  private async ignoringNotFound(send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
    }
  }
}
