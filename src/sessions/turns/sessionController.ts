/**
 * Runs one session's conversation (a chat): prompts and turns, cancellation, permission requests (answered
 * by the user, matched by option id, cancelled with the turn), modes and config options, what the agent's
 * terminals and refused file accesses show, and what happens when the agent goes away. It writes
 * everything into the session's {@link Thread}, which announces each change; the UI renders that.
 */
import * as fs from 'node:fs';
import * as l10n from '@vscode/l10n';
import { ConnectionClosedError, AuthRequiredError, RequestCancelledError } from '../../acp/errors';
import type { CancellationToken, PermissionOption, PermissionOutcome, PermissionRequest, PromptBlock, SessionSettings } from '../../acp/port/agentConnection';
import type { TranscriptEvent } from '../../acp/port/events';
import type { TurnEnd } from '../../acp/port/turn';
import type { OpenDocuments } from '../../roots/guardedFs';
import type { ErrorAction, ViewContent, ViewSessionState } from '../../shared/chatModel';
import type { Attachment, QueueAction } from '../../shared/chatProtocol';
import type { Thread, ThreadTerminal } from '../../thread/thread';
import { configOptionsToView } from '../../thread/toView';
import type { AgentSession, Refusal } from '../routing/agentSession';
import { explainFailure, isExplainable, type ExplainedFailure } from '../routing/explainFailure';
import { buildPrompt } from './promptBuilder';
import type { PromptQueue } from './promptQueue';
import { QueuedTurns } from './queuedTurns';
import { SentPrompts, type SentPrompt } from './sentPrompts';
import type { SessionSink } from '../routing/sessionRouter';
import { errorMessage } from '../../common/errors';

/** The order permission options are shown in: allow before reject, once before always. */
const KIND_ORDER = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];

interface PendingPermission {
  readonly entryId: string;
  readonly title: string;
  readonly options: readonly PermissionOption[];
  readonly resolve: (outcome: PermissionOutcome) => void;
}

export interface SessionControllerOptions {
  /** Open editors: a mentioned file's unsaved text is what the agent gets. */
  readonly documents?: OpenDocuments;
  /** A permission request is waiting for the user (the UI may notify when the chat is hidden). */
  onPermissionRequested?(entryId: string, title: string, options: readonly PermissionOption[]): void;
  /** Around every turn: a checkpoint of the session's folders before the prompt goes out, what changed after. */
  readonly turns?: TurnHooks;
  /** A turn ended with the agent's answer (`stoppedByUser`: the user stopped it, or closed the chat). */
  onTurnEnded?(stopReason: string, stoppedByUser: boolean): void;
  /** The chat shows an error about its agent (it failed a turn, exited, or could not be reopened). */
  onFailed?(message: string, actions: readonly ErrorAction[]): void;
}

/**
 * What runs around a turn. `before` settles before the prompt is sent (it never rejects: a failure is said
 * in the chat and the turn goes on); `after` runs once the turn ended, however it ended, before the chat
 * shows the end, with what `before` returned.
 */
export interface TurnHooks {
  before(chat: SessionController): Promise<unknown>;
  after(chat: SessionController, before: unknown): Promise<void>;
}

export class SessionController implements SessionSink {
  private current: AgentSession;
  /** The prompts sent from this chat as the user wrote them (for Edit and Retry). */
  private readonly sent: SentPrompts;
  private readonly pending = new Map<string, PendingPermission>();
  private turn: Promise<void> | undefined;
  /** This turn's refused writes, with the file as it was then (see {@link checkRefusedWrites}). */
  private readonly refusedWrites: Array<{ readonly entryId: string; readonly path: string; readonly before: FileMark | undefined }> = [];
  /** The user stopped the running turn: a prompt not sent yet (its checkpoint still being taken) is not sent. */
  private stopRequested = false;
  /** The agent is being restarted on purpose: its connection closing is expected, not a failure. */
  private restarting = false;
  /** A prompt is being built (attachments read) and its turn has not started yet. */
  private sending = false;
  /** Messages sent while a turn runs, and when they go (the rules are in promptQueue.ts). */
  private readonly queued = new QueuedTurns({
    busy: () => this.busy,
    running: () => this.turn !== undefined && !this.current.isDisconnected,
    connected: () => !this.restarting && !this.current.isDisconnected,
    send: (text, attachments) => this.send(text, attachments),
    stop: () => this.cancel(),
    say: (text, error) => (error ? this.thread.addError(text, ['showLog']) : this.thread.addInfo(text)),
    agentName: () => this.current.agentName,
  });
  /** What this chat listens to on its current session (replaced when the session is). */
  private subscriptions: Array<{ dispose(): void }> = [];

  constructor(
    session: AgentSession,
    readonly thread: Thread,
    private readonly options: SessionControllerOptions = {},
  ) {
    this.current = session;
    this.sent = new SentPrompts(thread);
    this.adopt(session);
  }

  get session(): AgentSession {
    return this.current;
  }

  /** The messages waiting for their turn. */
  get queue(): PromptQueue {
    return this.queued.queue;
  }

  get isRunning(): boolean {
    return this.turn !== undefined;
  }

  /** A turn runs, or is about to (its prompt is being built). */
  private get busy(): boolean {
    return this.turn !== undefined || this.sending;
  }

  /** Settles when no turn runs (at once when none does). */
  whenIdle(): Promise<void> {
    return this.turn ?? Promise.resolve();
  }

  /** The permission requests waiting for the user, oldest first. */
  waitingPermissions(): Array<{ readonly entryId: string; readonly title: string; readonly options: readonly PermissionOption[] }> {
    return [...this.pending.values()].map(({ entryId, title, options }) => ({ entryId, title, options }));
  }

  get pendingPermissions(): number {
    return this.pending.size;
  }

  /** After a reopen (resume/load on a new connection, or with other roots): continue in the same thread. */
  attach(session: AgentSession): void {
    this.current = session;
    this.adopt(session);
  }

  /** What the agent did in this session. */
  onEvent(event: TranscriptEvent): void {
    this.thread.apply(event);
  }

  /** A replay that waited for this chat is being handed over in slices (the header says how far). */
  replayProgress(done: number, total: number): void {
    this.thread.replayProgress(done, total);
  }

  /** A request of the agent was refused (a file outside the folders, a terminal folder): the chat shows it. */
  noteRefusal(refusal: Refusal): void {
    const entryId = this.thread.addRefusal(refusal.operation, refusal.path, refusal.message, refusal.command);
    // An agent may write the file with its own tools after the refusal (opencode does): looked at when the turn ends.
    if (refusal.operation === 'write') this.refusedWrites.push({ entryId, path: refusal.path, before: fileMark(refusal.path) });
  }

  /** Refused writes whose file is on disk now, changed since the refusal: the chat leads with that. */
  private checkRefusedWrites(): void {
    for (const { entryId, path, before } of this.refusedWrites.splice(0)) {
      const now = fileMark(path);
      if (now === undefined || now === 'absent' || before === undefined) continue;
      if (before === 'absent' || before.mtimeMs !== now.mtimeMs || before.size !== now.size) this.thread.markWrittenAnyway(entryId);
    }
  }

  /** An agent terminal started, wrote output or exited: the chat shows it (on its own, or in the tool calls showing it). */
  updateTerminal(terminalId: string, terminal: ThreadTerminal): void {
    this.thread.updateTerminal(terminalId, terminal);
  }

  /** Something the agent sent was discarded (over the message size limit): the chat says so, with the setting. */
  noteDiscarded(message: string): void {
    this.thread.addError(message, ['messageSizeSetting', 'showLog']);
  }

  /** A command the agent asked to run could not start: the chat shows it with the reason. */
  noteTerminalFailure(command: string, cwd: string | undefined, message: string): void {
    this.thread.addTerminalFailure(command, cwd, message);
  }

  /**
   * What the user typed and attached, as a prompt: files are read through the session's RootGuard (open
   * editors' unsaved text first); what cannot be sent is said in the chat. Resolves when the turn ends.
   */
  async send(text: string, attachments: readonly Attachment[]): Promise<void> {
    const session = this.current;
    this.sending = true;
    let built: Awaited<ReturnType<typeof buildPrompt>>;
    try {
      built = await buildPrompt(text, attachments, session.connection.caps.prompt, session.guard, this.options.documents);
    } finally {
      this.sending = false;
    }
    for (const line of built.skipped) this.thread.addInfo(line);
    if (built.blocks.length > 0) await this.prompt(built.blocks, built.shown, { text, attachments: [...attachments] });
    else this.queued.next();
  }

  /** What the user sent from the prompt box: sent now, or queued (see {@link QueuedTurns.submit}). */
  submit(text: string, attachments: readonly Attachment[], now = false): Promise<void> {
    return this.queued.submit(text, attachments, now);
  }

  /** What the user did to the queue (from the chat view). */
  queueAction(action: QueueAction): Promise<void> {
    return this.queued.act(action);
  }

  /**
   * What the user typed and attached for a prompt of this chat (by its entry's id), to edit or retry it.
   * A prompt replayed from the agent's history has only its text (from what the chat shows).
   */
  sentPrompt(entryId: string): SentPrompt | undefined {
    return this.sent.of(entryId);
  }

  /** The last prompt of the chat, if any (what Retry sends again). */
  lastPrompt(): (SentPrompt & { readonly entryId: string }) | undefined {
    return this.sent.last();
  }

  /** Sends a prompt and runs the turn to its end; errors become thread entries, never throws. */
  prompt(blocks: readonly PromptBlock[], shown: ViewContent[], sent?: SentPrompt): Promise<void> {
    if (this.turn) return Promise.reject(new Error(l10n.t('A turn is already running in this session; stop it first.')));
    const entryId = this.thread.addUserPrompt(shown);
    if (sent) this.sent.remember(entryId, sent);
    const session = this.current;
    const hooks = this.options.turns;
    this.stopRequested = false;
    let ending: 'normal' | 'stopped' | 'failed' = 'failed';
    const turn = (async () => {
      const before = hooks ? await hooks.before(this) : undefined;
      let outcome: { stopReason: string } | { error: unknown };
      try {
        // The end of the turn comes from the turn the protocol adapter runs (acp/port/turn.ts).
        const end: TurnEnd = this.stopRequested
          ? { reason: 'stopped', stopReason: 'cancelled' }
          : await session.connection.startTurn({ sessionId: session.sessionId, prompt: blocks }).ended;
        outcome = end.reason === 'stopped' ? { stopReason: end.stopReason } : { error: end.error };
      } catch (error) {
        outcome = { error };
      }
      // Whatever ended the turn, what it changed is shown (an agent that crashed may have written files).
      if (hooks) await hooks.after(this, before);
      this.checkRefusedWrites();
      if ('stopReason' in outcome) {
        this.thread.endTurn(outcome.stopReason);
        this.options.onTurnEnded?.(outcome.stopReason, this.stopRequested);
      } else this.turnFailed(outcome.error, session);
      const stopped = this.stopRequested || ('stopReason' in outcome ? outcome.stopReason === 'cancelled' : outcome.error instanceof RequestCancelledError);
      ending = stopped ? 'stopped' : 'stopReason' in outcome && !session.isDisconnected ? 'normal' : 'failed';
    })().finally(() => {
      this.turn = undefined;
      this.cancelPendingPermissions();
      this.queued.turnEnded(ending);
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
    this.stopRequested = true;
    // Let the `cancelled` answers go out before the cancel itself.
    if (hadPending) await new Promise((resolve) => setImmediate(resolve));
    this.thread.setSession({ statusDetail: 'Stopping…' });
    await this.current.connection.cancel(this.current.sessionId);
    // As the spec asks, at once: not every agent ends the turn with `cancelled` (the ACP SDK's example
    // agent answers `end_turn`), and its unfinished tool calls would otherwise stay pending for good.
    this.thread.cancelUnfinishedTools();
  }

  /** The agent asks the user to approve a tool call. Resolves with the user's choice (or cancelled). */
  requestPermission(request: PermissionRequest, token?: CancellationToken): Promise<PermissionOutcome> {
    const options = [...request.options].sort((a, b) => rank(a.kind) - rank(b.kind));
    const title = request.toolCall.title ?? this.toolTitle(request.toolCall.toolCallId) ?? l10n.t('The agent wants to run a tool');
    if (request.toolCall.title || request.toolCall.status || request.toolCall.content) this.thread.applyPermissionToolCall(request.toolCall);
    const entryId = this.thread.addPermission(
      title,
      request.toolCall.toolCallId,
      options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
    );
    this.options.onPermissionRequested?.(entryId, title, options);
    return new Promise((resolve) => {
      this.pending.set(entryId, { entryId, title, options, resolve });
      token?.onCancellationRequested(() => this.settlePermission(entryId, undefined));
    });
  }

  /**
   * A remote agent whose entry lets it run commands on this machine asks to run one: `question` names the agent,
   * the command and the folder. Asked like a permission (the same entry, notification and answers); resolves true
   * only when the user chose to run it.
   */
  confirmCommand(question: string, token?: CancellationToken): Promise<boolean> {
    const options: PermissionOption[] = [
      { optionId: 'run-here', name: l10n.t('Run it, confined'), kind: 'allow_once' },
      { optionId: 'do-not-run', name: l10n.t('Do not run it'), kind: 'reject_once' },
    ];
    const entryId = this.thread.addPermission(
      question,
      undefined,
      options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
    );
    this.options.onPermissionRequested?.(entryId, question, options);
    return new Promise((resolve) => {
      this.pending.set(entryId, {
        entryId,
        title: question,
        options,
        resolve: (outcome) => resolve(outcome.outcome === 'selected' && outcome.optionId === 'run-here'),
      });
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
    await this.settings('modes').setMode(modeId);
    const modes = this.thread.session.modes;
    if (modes) this.thread.setSession({ modes: { ...modes, currentModeId: modeId } });
  }

  /** Unstable `session/set_model`; the picker shows the new model once the agent has accepted it. */
  async setModel(modelId: string): Promise<void> {
    await this.settings('models').setModel(modelId);
    const models = this.thread.session.models;
    if (models) this.thread.setSession({ models: { ...models, currentModelId: modelId } });
  }

  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const options = await this.settings('configOptions').setConfigOption(configId, value);
    this.thread.setSession({ configOptions: configOptionsToView(options) });
  }

  /** The session's settings; the agent's own error when its setup answer did not offer `setting`. */
  private settings(setting: 'modes' | 'models' | 'configOptions'): SessionSettings {
    const { connection, sessionId } = this.current;
    const settings = connection.settings(sessionId);
    if (!settings?.[setting]) throw connection.unsupported(setting, sessionId);
    return settings;
  }

  /**
   * The agent is about to be restarted (by the user, from anywhere): the chat says so, and its connection
   * closing is not shown as a failure. The session is reopened next ({@link attach}), or
   * {@link reconnectFailed} says why it could not be.
   */
  expectRestart(): void {
    this.restarting = true;
    this.thread.addInfo(l10n.t('Restarting {0}…', this.current.agentName));
    this.thread.setSession({ status: 'starting', statusDetail: l10n.t('Restarting {0}…', this.current.agentName) });
  }

  /** Reopening the session failed (after a restart, or when asked to): the chat says why and offers to try again. */
  reconnectFailed(message: string, actions: ErrorAction[] = ['restart', 'reopen'], explained?: ExplainedFailure): void {
    this.restarting = false;
    this.thread.setSession({ status: 'disconnected', statusDetail: shortReason(message) });
    this.failed(sentence(message), explained?.actions ?? actions, explained);
  }

  /** The connection closed under this session (agent exited or was stopped). */
  disconnected(reason: string): void {
    this.cancelPendingPermissions();
    this.queued.queue.hold('failed');
    this.thread.interruptUnfinishedTools();
    if (this.restarting) return;
    if (this.thread.session.status !== 'disconnected') {
      this.thread.setSession({ status: 'disconnected', statusDetail: shortReason(reason) });
      if (!this.turn) this.failed(sentence(reason), ['restart', 'reopen']);
    }
  }

  /** The chat closed: nothing it listened to keeps it alive. */
  dispose(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
  }

  private adopt(session: AgentSession): void {
    this.restarting = false;
    const { modes, models, configOptions } = session.setup;
    this.thread.setSession({
      sessionId: session.sessionId,
      status: this.turn ? 'running' : 'idle',
      statusDetail: undefined,
      roots: viewRoots(session),
      rootsStale: session.stale?.reason,
      modes: modes
        ? {
            currentModeId: modes.currentModeId,
            available: modes.availableModes.map((m) => ({ id: m.id, name: m.name, description: m.description ?? undefined })),
          }
        : undefined,
      models: models
        ? {
            currentModelId: models.currentModelId,
            available: models.availableModels.map((m) => ({ id: m.modelId, name: m.name, description: m.description ?? undefined })),
          }
        : undefined,
      configOptions: configOptions ? configOptionsToView(configOptions) : [],
      prompt: session.connection.caps.prompt,
    });
    this.dispose();
    this.subscriptions = [
      session.onDidChange(() => this.thread.setSession({ roots: viewRoots(session), rootsStale: session.stale?.reason })),
      session.connection.onDidClose((reason) => this.disconnected(reason)),
    ];
  }

  private turnFailed(error: unknown, session: AgentSession): void {
    if (error instanceof RequestCancelledError) {
      this.thread.endTurn('cancelled');
      this.options.onTurnEnded?.('cancelled', this.stopRequested);
      return;
    }
    // The turn is over without an answer: nothing will finish its tool calls.
    this.thread.interruptUnfinishedTools();
    if (error instanceof ConnectionClosedError && (this.restarting || session !== this.current)) {
      // A restart the user asked for ended the turn; the session is being reopened.
      this.thread.addInfo(l10n.t('The turn was stopped: {0} restarted.', session.agentName));
    } else if (error instanceof ConnectionClosedError) {
      this.thread.setSession({ status: 'disconnected', statusDetail: shortReason(error.reason) });
      this.failed(l10n.t('{0} Everything up to here is kept; restart the agent, or reopen this session to continue.', sentence(error.reason)), [
        'restart',
        'reopen',
      ]);
    } else if (error instanceof AuthRequiredError) {
      this.failed(
        error.message,
        ['signIn'],
        explainFailure(session.agentName, error, session.connection.recentStderr, ['signIn'], session.connection.isRemote),
      );
      this.thread.setSession({ status: 'idle', statusDetail: undefined });
    } else if (isExplainable(error)) {
      const explained = explainFailure(session.agentName, error, session.connection.recentStderr, ['showLog'], session.connection.isRemote);
      this.failed((error as Error).message, explained.actions, explained);
      this.thread.setSession({ status: 'idle', statusDetail: undefined });
    } else {
      this.failed(errorMessage(error), ['showLog']);
      this.thread.setSession({ status: 'idle', statusDetail: undefined });
    }
  }

  /** An error about the agent: in the chat, and to whoever notifies the user. */
  private failed(message: string, actions: ErrorAction[], explained?: ExplainedFailure): void {
    this.thread.addError(message, actions, explained);
    this.options.onFailed?.(message, actions);
  }

  private settlePermission(entryId: string, option: PermissionOption | undefined): void {
    const pending = this.pending.get(entryId);
    if (!pending) return;
    this.pending.delete(entryId);
    this.thread.resolvePermission(entryId, option ? { chosen: option.optionId, name: option.name, kind: option.kind } : 'cancelled');
    pending.resolve(option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' });
  }

  private cancelPendingPermissions(): void {
    for (const entryId of [...this.pending.keys()]) this.settlePermission(entryId, undefined);
  }

  private toolTitle(toolCallId: string): string | undefined {
    return this.thread.toolEntry(toolCallId)?.title || undefined;
  }
}

/** The session's folders for the chat header, the primary first, the withdrawn ones marked. */
function viewRoots(session: AgentSession): ViewSessionState['roots'] {
  const withdrawn = new Set(session.withdrawn);
  return [session.rootSet.cwd, ...session.rootSet.additionalDirectories].map((root, index) => ({
    name: root.name,
    path: root.path,
    primary: index === 0,
    ...(withdrawn.has(root.path) ? { withdrawn: true } : {}),
  }));
}

/** The first sentence of a reason, for the header (the whole text is in the transcript). */
function shortReason(reason: string): string {
  // A sentence ends at a stop followed by a space and a capital, or by the end: not at the dots of a version.
  const first = /^.*?[.!?](?=\s+[A-Z]|\s*$)/s.exec(reason)?.[0] ?? reason;
  return first.length > 90 ? `${first.slice(0, 89)}…` : first;
}

function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

function rank(kind: string): number {
  const at = KIND_ORDER.indexOf(kind);
  return at === -1 ? KIND_ORDER.length : at;
}

/** A file's size and time of change, or that it is absent; undefined when it cannot be told. */
type FileMark = { readonly mtimeMs: number; readonly size: number } | 'absent';

function fileMark(path: string): FileMark | undefined {
  try {
    const stat = fs.statSync(path, { throwIfNoEntry: false });
    return stat === undefined ? 'absent' : { mtimeMs: stat.mtimeMs, size: stat.size };
  } catch {
    return undefined;
  }
}
