/**
 * Runs one session's conversation: prompts and turns, cancellation, permission requests (answered by the
 * user, matched by option id, cancelled with the turn), modes and config options, and what happens when
 * the agent goes away. It writes everything into the session's {@link Thread}; the UI renders that.
 */
import { ConnectionClosedError, AuthRequiredError, RequestCancelledError } from '../acp/errors';
import type {
  OutgoingContentBlock,
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from '../acp/schema';
import type { CancellationToken } from '../acp/connection';
import type { ViewContent } from '../shared/chatModel';
import type { Thread } from '../thread/thread';
import { configOptionsToView } from '../thread/toView';
import type { AgentSession } from './agentSession';

/** The order permission options are shown in: allow before reject, once before always. */
const KIND_ORDER = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];

interface PendingPermission {
  readonly entryId: string;
  readonly options: readonly PermissionOption[];
  readonly resolve: (response: RequestPermissionResponse) => void;
}

export interface SessionControllerHooks {
  /** Something in the thread changed (the UI schedules a render). */
  onChange(): void;
  /** A permission request is waiting for the user (the UI may notify when the chat is hidden). */
  onPermissionRequested?(entryId: string, title: string, options: readonly PermissionOption[]): void;
}

export class SessionController {
  private current: AgentSession;
  private readonly pending = new Map<string, PendingPermission>();
  private turn: Promise<void> | undefined;

  constructor(
    session: AgentSession,
    readonly thread: Thread,
    private readonly hooks: SessionControllerHooks,
  ) {
    this.current = session;
    this.adopt(session);
  }

  get session(): AgentSession {
    return this.current;
  }

  get isRunning(): boolean {
    return this.turn !== undefined;
  }

  get pendingPermissions(): number {
    return this.pending.size;
  }

  /** After a reopen (resume/load on a new connection, or with other roots): continue in the same thread. */
  attach(session: AgentSession): void {
    this.current = session;
    this.adopt(session);
    this.changed();
  }

  /** A `session/update` for this session. */
  onUpdate(update: SessionUpdate): void {
    this.thread.apply(update);
    this.changed();
  }

  /** Sends a prompt and runs the turn to its end; errors become thread entries, never throws. */
  prompt(blocks: OutgoingContentBlock[], shown: ViewContent[]): Promise<void> {
    if (this.turn) return Promise.reject(new Error('A turn is already running in this session; stop it first.'));
    this.thread.addUserPrompt(shown);
    this.changed();
    const session = this.current;
    const turn = session.connection
      .prompt({ sessionId: session.sessionId, prompt: blocks })
      .then(
        (result) => this.thread.endTurn(result.stopReason),
        (error: unknown) => this.turnFailed(error),
      )
      .finally(() => {
        this.turn = undefined;
        this.cancelPendingPermissions();
        this.changed();
      });
    this.turn = turn;
    return turn;
  }

  /**
   * Stops the running turn: pending permission requests are answered `cancelled` first, then
   * `session/cancel` is sent and unfinished tool calls are marked cancelled; the agent ends the turn
   * (with `stopReason: "cancelled"`, if it follows the spec).
   */
  async cancel(): Promise<void> {
    const hadPending = this.pending.size > 0;
    this.cancelPendingPermissions();
    if (!this.turn || this.current.isDisconnected) return;
    // Let the `cancelled` answers go out before the cancel itself.
    if (hadPending) await new Promise((resolve) => setImmediate(resolve));
    this.thread.setSession({ statusDetail: 'Stopping…' });
    this.changed();
    await this.current.connection.cancel(this.current.sessionId);
    // As the spec asks, at once: not every agent ends the turn with `cancelled` (the ACP SDK's example
    // agent answers `end_turn`), and its unfinished tool calls would otherwise stay pending for good.
    this.thread.cancelUnfinishedTools();
    this.changed();
  }

  /** The agent asks the user to approve a tool call. Resolves with the user's choice (or cancelled). */
  requestPermission(params: RequestPermissionRequest, token?: CancellationToken): Promise<RequestPermissionResponse> {
    const options = [...params.options].sort((a, b) => rank(a.kind) - rank(b.kind));
    const title = params.toolCall.title ?? this.toolTitle(params.toolCall.toolCallId) ?? 'The agent wants to run a tool';
    if (params.toolCall.title || params.toolCall.status || params.toolCall.content) {
      this.thread.apply({ ...params.toolCall, sessionUpdate: 'tool_call_update' });
    }
    const entryId = this.thread.addPermission(
      title,
      params.toolCall.toolCallId,
      options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
    );
    this.changed();
    this.hooks.onPermissionRequested?.(entryId, title, options);
    return new Promise((resolve) => {
      this.pending.set(entryId, { entryId, options, resolve });
      token?.onCancellationRequested(() => this.settlePermission(entryId, undefined));
    });
  }

  /** The user picked an option (by id: never by position). Unknown ids are ignored. */
  choosePermission(entryId: string, optionId: string): void {
    const pending = this.pending.get(entryId);
    const option = pending?.options.find((o) => o.optionId === optionId);
    if (pending && option) this.settlePermission(entryId, option);
  }

  /** Picks the option of a kind (e.g. `allow_once`) when the agent offered one. */
  choosePermissionKind(entryId: string, kind: string): boolean {
    const option = this.pending.get(entryId)?.options.find((o) => o.kind === kind);
    if (option) this.settlePermission(entryId, option);
    return option !== undefined;
  }

  async setMode(modeId: string): Promise<void> {
    await this.current.connection.setMode(this.current.sessionId, modeId);
    const modes = this.thread.session.modes;
    if (modes) this.thread.setSession({ modes: { ...modes, currentModeId: modeId } });
    this.changed();
  }

  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const result = await this.current.connection.setConfigOption(this.current.sessionId, configId, value);
    this.thread.setSession({ configOptions: configOptionsToView(result.configOptions) });
    this.changed();
  }

  /** The connection closed under this session (agent exited or was stopped). */
  disconnected(reason: string): void {
    this.cancelPendingPermissions();
    if (this.thread.session.status !== 'disconnected') {
      this.thread.setSession({ status: 'disconnected', statusDetail: shortReason(reason) });
      if (!this.turn) this.thread.addError(sentence(reason), ['restart', 'reopen']);
      this.changed();
    }
  }

  private adopt(session: AgentSession): void {
    const { modes, configOptions } = session.setup;
    this.thread.setSession({
      sessionId: session.sessionId,
      status: this.turn ? 'running' : 'idle',
      statusDetail: undefined,
      roots: [session.rootSet.cwd, ...session.rootSet.additionalDirectories].map((root, index) => ({ name: root.name, path: root.path, primary: index === 0 })),
      rootsStale: session.stale?.reason,
      modes: modes
        ? {
            currentModeId: modes.currentModeId,
            available: modes.availableModes.map((m) => ({ id: m.id, name: m.name, description: m.description ?? undefined })),
          }
        : undefined,
      configOptions: configOptions ? configOptionsToView(configOptions) : [],
      prompt: session.connection.caps.prompt,
    });
    session.onDidChange(() => {
      if (this.current !== session) return;
      this.thread.setSession({ rootsStale: session.stale?.reason });
      this.changed();
    });
    session.connection.onDidClose((reason) => {
      if (this.current === session) this.disconnected(reason);
    });
  }

  private turnFailed(error: unknown): void {
    if (error instanceof RequestCancelledError) {
      this.thread.endTurn('cancelled');
    } else if (error instanceof ConnectionClosedError) {
      this.thread.setSession({ status: 'disconnected', statusDetail: shortReason(error.reason) });
      this.thread.addError(`${sentence(error.reason)} Everything up to here is kept; restart the agent, or reopen this session to continue.`, ['restart', 'reopen']);
    } else if (error instanceof AuthRequiredError) {
      this.thread.addError(error.message, ['signIn']);
      this.thread.setSession({ status: 'idle' });
    } else {
      this.thread.addError(error instanceof Error ? error.message : String(error), ['showLog']);
      this.thread.setSession({ status: 'idle' });
    }
  }

  private settlePermission(entryId: string, option: PermissionOption | undefined): void {
    const pending = this.pending.get(entryId);
    if (!pending) return;
    this.pending.delete(entryId);
    this.thread.resolvePermission(entryId, option ? { chosen: option.optionId, name: option.name, kind: option.kind } : 'cancelled');
    pending.resolve({ outcome: option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' } });
    this.changed();
  }

  private cancelPendingPermissions(): void {
    for (const entryId of [...this.pending.keys()]) this.settlePermission(entryId, undefined);
  }

  private toolTitle(toolCallId: string): string | undefined {
    return this.thread.toolEntry(toolCallId)?.title || undefined;
  }

  private changed(): void {
    this.hooks.onChange();
  }
}

/** The first sentence of a reason, for the header (the whole text is in the transcript). */
function shortReason(reason: string): string {
  const first = /^(.*?\))?[^.]*\./.exec(reason)?.[0] ?? reason;
  return first.length > 90 ? `${first.slice(0, 89)}…` : first;
}

function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

function rank(kind: string): number {
  const at = KIND_ORDER.indexOf(kind);
  return at === -1 ? KIND_ORDER.length : at;
}
