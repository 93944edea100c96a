/**
 * The transcript of one session, folded from the agent's transcript events (acp/port/events.ts, whatever the
 * protocol version) and the client's own events
 * (prompts, turn ends, permission requests, errors, refusals) into view entries, with the changes since
 * the last {@link Thread.takeOps} kept as a coalesced list of ops for the webview.
 *
 * Like Zed's `acp_thread`: one reducer; message chunks with the same `messageId` (or consecutive chunks
 * without one) form one entry; tool calls are patched by id (`content` and `locations` replace).
 *
 * ACP v2's upserts are keyed by id wherever the entry is: a whole message replaces the content of the message
 * with its id, a chunk appends to it, a tool call patch or content chunk changes the call with its id, a plan
 * replaces the plan with its id; an id not seen yet creates the entry, `null` clears a field. The prompt the
 * user sent is shown once: a user message the agent sends for it (its echo, v2) names it and changes nothing.
 */
import * as l10n from '@vscode/l10n';
import type { ContentPart, MessageRole, ToolCallChange, ToolCallPatch, ToolContent, TranscriptEvent } from '../acp/port/events';
import { Emitter, type Event } from '../common/events';
import { compactionText } from './compactionText';
import {
  type ChatOp,
  type ErrorAction,
  type ViewChangedFile,
  type ViewContent,
  type ViewEntry,
  type ViewEntryOf,
  type ViewSessionState,
  type ViewToolContent,
} from '../shared/chatModel';
import { EntryLog } from './entryLog';
import { isUnfinished, keepAcrossReplay, placeAfterTurns, type TurnAnchor } from './replayMerge';
import { ThreadTerminals } from './threadTerminals';
import { configOptionsToView, contentToView, modesSuperseded, preview, toolContentToView, type ThreadTerminal } from './toView';

export type { ThreadTerminal } from './toView';

const MESSAGE_KINDS = ['user', 'agent', 'thought'] as const;

/** A thought's text from content parts (a thought shows text only: other kinds are named). */
function thoughtText(parts: readonly ContentPart[]): string {
  let text = '';
  for (const part of parts) text += part.type === 'text' ? part.text : `[${part.type}]`;
  return text;
}
export type { TurnAnchor } from './replayMerge';

type MessageKind = 'user' | 'agent' | 'thought';

export class Thread {
  private readonly entries = new EntryLog(() => this.changed());
  private readonly toolEntries = new Map<string, string>();
  /** The turn in which each tool call id was announced (see {@link upsertTool}). */
  private readonly toolTurns = new Map<string, number>();
  /** Counts turn boundaries: user prompts (the client's own and replayed ones) and turn ends. */
  private turn = 0;
  private readonly terminals = new ThreadTerminals(
    this.entries,
    (entry) => {
      this.closeMessage();
      return this.entries.add(entry);
    },
    (prefix) => this.newId(prefix),
  );
  /** messageId of the open message entry of each kind, so chunks of one message land together. */
  private lastMessage: { kind: MessageKind; id: string; messageId: string | undefined } | undefined;
  private planEntryId: string | undefined;
  /** Entries of messages keyed by id (ACP v2's upserts), per kind: messageId → entry id. */
  private readonly keyedMessages: Readonly<Record<MessageKind, Map<string, string>>> = { user: new Map(), agent: new Map(), thought: new Map() };
  /** The user's own prompts (entry ids): what the chat shows for them is what the user sent, never the agent's echo. */
  private readonly ownPrompts = new Set<string>();
  /** The user's own prompts not yet named by a message id, oldest first: the next user message the agent sends is the first one's echo. */
  private awaitingEcho: string[] = [];
  /** Plans keyed by id (ACP v2's `plan_update`): planId → entry id. */
  private readonly plans = new Map<string, string>();
  /** The line of each compaction updated in place (ACP v2): compactionId → entry id. */
  private readonly compactions = new Map<string, string>();
  private turnStarted: number | undefined;
  private sessionDirty = false;
  private nextId = 1;
  private sessionState: ViewSessionState;
  private agentTitleValue: string | undefined;
  /** The agent's modes as it last said them; the session state shows them unless a config option stands for them. */
  private agentModes: ViewSessionState['modes'];
  private announcing = false;
  /**
   * What the transcript showed when a `session/load` replay started over it (see {@link beginReplay}); the
   * webview keeps showing it, so no op is queued for the replay until it ends.
   */
  private beforeReplay: ViewEntry[] | undefined;
  private readonly changeEmitter = new Emitter<void>();
  private readonly replayEndEmitter = new Emitter<void>();

  /** A replay into this chat ended ({@link endReplay}): what it shows now is the agent's record. */
  readonly onDidEndReplay: Event<void> = this.replayEndEmitter.event;

  /**
   * The transcript or the session state changed. Announced once for all the changes made in one run of
   * the event loop (a burst of streamed chunks is one announcement), after they were made.
   */
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(initial: Pick<ViewSessionState, 'agentName' | 'roots' | 'prompt'> & Partial<ViewSessionState>) {
    this.sessionState = { status: 'starting', configOptions: [], commands: [], ...initial };
  }

  get session(): ViewSessionState {
    return this.sessionState;
  }

  /** The agent's title (`session_info_update`); the chat shows `session.title`, by the rule of history/sessionTitle.ts. */
  get agentTitle(): string | undefined {
    return this.agentTitleValue;
  }

  get length(): number {
    return this.entries.length;
  }

  /** The whole state, for a (re)created webview (during a replay over a shown transcript, what it showed). */
  snapshot(): { session: ViewSessionState; entries: ViewEntry[] } {
    return { session: this.sessionState, entries: this.beforeReplay?.slice() ?? this.entries.all() };
  }

  /** A replay is being built aside (between {@link beginReplay} and its end). */
  get replaying(): boolean {
    return this.beforeReplay !== undefined;
  }

  /** Whether it shows any of the conversation (messages, thoughts, tool calls, plans), not only the client's notes. */
  get hasConversation(): boolean {
    return this.entries.view().some((e) => e.kind === 'user' || e.kind === 'agent' || e.kind === 'thought' || e.kind === 'tool' || e.kind === 'plan');
  }

  entry(id: string): ViewEntry | undefined {
    return this.entries.get(id);
  }

  /** The entry of a tool call, by the agent's tool call id. */
  toolEntry(toolCallId: string): ViewEntryOf<'tool'> | undefined {
    const id = this.toolEntries.get(toolCallId);
    const entry = id === undefined ? undefined : this.entry(id);
    return entry?.kind === 'tool' ? entry : undefined;
  }

  /** Changes since the last call, coalesced (consecutive appends merged, superseded ops dropped). */
  takeOps(): ChatOp[] {
    const ops = this.entries.takeOps();
    if (this.sessionDirty) {
      ops.push({ op: 'session', state: this.sessionState });
      this.sessionDirty = false;
    }
    return ops;
  }

  get hasChanges(): boolean {
    return this.entries.hasOps || this.sessionDirty;
  }

  // ---- the agent's transcript events -------------------------------------------------------------

  apply(event: TranscriptEvent): void {
    switch (event.type) {
      case 'message': {
        const view = contentToView(event.content);
        if (event.role !== 'thought') return this.addChunk(event.role, event.messageId, view);
        return this.addChunk('thought', event.messageId, view.type === 'text' ? view : { type: 'text', text: `[${view.type}]` });
      }
      case 'messageUpsert':
        return this.upsertMessage(event.role, event.messageId, event.content);
      case 'messageAppend':
        return this.appendToMessage(event.role, event.messageId, event.content);
      case 'promptAccepted':
        return this.namePrompt(event.messageId);
      case 'toolCall':
        return this.upsertTool(event.call, event.isNew);
      case 'toolCallUpsert':
        return this.patchTool(event.call);
      case 'toolCallAppend':
        return this.appendToolContent(event.toolCallId, event.content);
      case 'agentTerminal':
        return this.terminals.agentTerminal(event.report);
      case 'plan': {
        const entries = event.entries.map((e) => ({ content: e.content, priority: e.priority, status: e.status }));
        if (event.planId !== undefined) return this.putPlan(event.planId, entries);
        const existing = this.planEntryId;
        if (existing) this.entries.put({ kind: 'plan', id: existing, entries });
        else this.planEntryId = this.entries.add({ kind: 'plan', id: this.newId('plan'), entries });
        return;
      }
      case 'commands':
        return this.setSession({ commands: event.commands.map((c) => ({ name: c.name, description: c.description, hint: c.hint })) });
      case 'currentMode':
        if (this.agentModes) this.setSession({ modes: { ...this.agentModes, currentModeId: event.modeId } });
        return;
      case 'configOptions':
        return this.setSession({ configOptions: configOptionsToView(event.options) });
      case 'sessionInfo':
        if (event.title !== undefined && (event.title ?? undefined) !== this.agentTitleValue) {
          this.agentTitleValue = event.title ?? undefined;
          this.changed();
        }
        return;
      case 'usage': {
        // v2 (costPatch): an absent cost leaves the last one, null clears it; v1: an absent cost is none.
        const cost =
          event.cost === undefined && event.costPatch
            ? this.sessionState.usage?.cost
            : event.cost
              ? { amount: event.cost.amount, currency: event.cost.currency }
              : undefined;
        return this.setSession({ usage: { used: event.used, size: event.size, cost } });
      }
      case 'notice':
        this.closeMessage();
        this.entries.add({ kind: 'notice', id: this.newId('notice'), severity: event.severity, title: event.title, description: event.description });
        return;
      case 'compaction': {
        const text = compactionText(event.status, event.error);
        const line = event.upsert ? this.compactions.get(event.compactionId) : undefined;
        if (line !== undefined && this.entry(line)?.kind === 'info') return this.entries.put({ kind: 'info', id: line, text });
        this.closeMessage();
        const id = this.entries.add({ kind: 'info', id: this.newId('info'), text });
        if (event.upsert) this.compactions.set(event.compactionId, id);
        return;
      }
      case 'compactionSummary': {
        const view = contentToView(event.content);
        return this.addChunk('thought', `compaction:${event.compactionId}`, view.type === 'text' ? view : { type: 'text', text: '' });
      }
      case 'unknown':
        this.closeMessage();
        this.entries.add({ kind: 'unknown', id: this.newId('unknown'), tag: event.tag, raw: preview(event.raw), error: event.error });
        return;
    }
  }

  // ---- the client's own events --------------------------------------------------------------------

  /** Forgets the transcript (before `session/load` replays it from the agent into an empty chat). */
  reset(): void {
    this.beforeReplay = undefined;
    this.entries.setQuiet(false);
    this.show([]);
  }

  /**
   * `session/load` is about to replay the history into this transcript, which already shows the
   * conversation (a chat recovering after a crash, or reopened with other folders). The replay is built
   * aside while the webview keeps showing the transcript; {@link endReplay} then shows the agent's record
   * with what only this client showed kept in place (see `replayMerge.ts`), {@link abortReplay} goes back.
   */
  beginReplay(): void {
    if (this.beforeReplay) return;
    this.beforeReplay = this.entries.all();
    this.clear();
    // The webview keeps showing what it showed; it gets the replay when it ends.
    this.entries.setQuiet(true);
  }

  /**
   * The replay is complete (`session/load` answered, or a fork's replay arrived). No turn runs now, so a tool
   * call the replay left pending or in progress was interrupted (the agent stopped in it) and shows so.
   */
  endReplay(): void {
    const before = this.beforeReplay;
    this.beforeReplay = undefined;
    this.entries.setQuiet(false);
    this.closeMessage();
    this.planEntryId = undefined;
    // Over a shown transcript, the replay and what only this chat showed are merged; over an empty one
    // (a chat opened for the replay) the replay as folded is the transcript, and is shown as it is.
    if (before && before.length > 0) this.show(keepAcrossReplay(before, this.entries.view()));
    else if (before) this.entries.republish();
    this.interruptUnfinishedTools();
    // The header said how far the replay was (see replayProgress): it is complete.
    if (this.sessionState.status === 'loading') this.setSession({ status: 'idle', statusDetail: undefined });
    if (before) this.replayEndEmitter.fire();
  }

  /**
   * A replay that waited for this chat is being folded in slices: `done` of `total` updates so far. The
   * header says how far it is; {@link endReplay} ends it.
   */
  replayProgress(done: number, total: number): void {
    const statusDetail = l10n.t('Loading history… {0}%', Math.floor((done / Math.max(1, total)) * 100));
    if (this.sessionState.status !== 'loading' || this.sessionState.statusDetail !== statusDetail) this.setSession({ status: 'loading', statusDetail });
  }

  /** The load failed: the transcript is what it was before it. */
  abortReplay(): void {
    const before = this.beforeReplay;
    if (!before) return;
    this.beforeReplay = undefined;
    this.entries.setQuiet(false);
    this.show(before);
  }

  /** The user sent a prompt: show it, and start a turn. Returns its entry's id. */
  addUserPrompt(blocks: ViewContent[]): string {
    this.closeMessage();
    const id = this.newId('user');
    this.entries.add({ kind: 'user', id, blocks });
    this.ownPrompts.add(id);
    this.awaitingEcho.push(id);
    this.turn++;
    this.beginTurn();
    return id;
  }

  beginTurn(): void {
    this.turnStarted = Date.now();
    this.planEntryId = undefined;
    this.setSession({ status: 'running', statusDetail: undefined });
  }

  /** The prompt answered: mark the end of the turn with its stop reason. */
  endTurn(stopReason: string): void {
    this.closeMessage();
    const durationMs = this.turnStarted === undefined ? undefined : Date.now() - this.turnStarted;
    this.turnStarted = undefined;
    this.turn++;
    // A prompt the agent never named by now has no echo coming: a later user message is the agent's own.
    this.awaitingEcho = [];
    if (stopReason === 'cancelled') this.cancelUnfinishedTools();
    this.entries.add({ kind: 'turnEnd', id: this.newId('end'), stopReason, durationMs });
    // What the header said during the turn ("Stopping…") ends with it.
    this.setSession({ status: 'idle', statusDetail: undefined });
  }

  /** Marks every tool call that is still pending or in progress as cancelled (the user stopped the turn). */
  cancelUnfinishedTools(): void {
    this.finishUnfinishedTools('cancelled');
  }

  /**
   * Marks every tool call that is still pending or in progress as interrupted: its turn ended without an
   * answer (the agent exited or was restarted), so nothing will finish it.
   */
  interruptUnfinishedTools(): void {
    this.finishUnfinishedTools('interrupted');
  }

  addPermission(title: string, toolCallId: string | undefined, options: ViewEntryOf<'permission'>['options']): string {
    this.closeMessage();
    return this.entries.add({ kind: 'permission', id: this.newId('permission'), title, toolCallId, options, state: 'pending' });
  }

  resolvePermission(id: string, state: ViewEntryOf<'permission'>['state']): void {
    this.setState(id, 'permission', state);
  }

  /** `explained`: the agent's own words and the likely cause, when known (see process/startFailure). */
  addError(message: string, actions: ErrorAction[] = [], explained?: { said: readonly string[]; advice: string | undefined }): string {
    this.closeMessage();
    const said = explained && explained.said.length > 0 ? { said: [...explained.said] } : {};
    const advice = explained?.advice ? { advice: explained.advice } : {};
    return this.entries.add({ kind: 'error', id: this.newId('error'), message, actions, ...said, ...advice });
  }

  /** The client refused a request of the agent: `path` (a terminal's folder) and why, `command` for a terminal. */
  addRefusal(operation: string, path: string, message: string, command?: string): string {
    this.closeMessage();
    return this.entries.add({ kind: 'refusal', id: this.newId('refusal'), operation, path, message, ...(command !== undefined ? { command } : {}) });
  }

  /** The file of a refused write is on disk all the same: the agent wrote it with its own tools. */
  markWrittenAnyway(id: string): void {
    const entry = this.entry(id);
    if (entry?.kind === 'refusal' && entry.writtenAnyway !== true) this.entries.put({ ...entry, writtenAnyway: true });
  }

  /** What a turn changed in the session's folders (see the `changes` entry); returns its id. */
  addChanges(changes: Omit<ViewEntryOf<'changes'>, 'kind' | 'id'>): string {
    this.closeMessage();
    return this.entries.add({ kind: 'changes', id: this.newId('changes'), ...changes });
  }

  /**
   * What turns changed, put back at the end of the turns their anchors name (after a replay into a new chat,
   * which brings back only the agent's record: see `placeAfterTurns`). Returns the new entries' ids, in the
   * order given (`undefined` for a turn whose prompt the chat does not show).
   */
  addChangesAfterTurns(
    additions: readonly { readonly anchor: TurnAnchor; readonly changes: Omit<ViewEntryOf<'changes'>, 'kind' | 'id'> }[],
  ): (string | undefined)[] {
    if (additions.length === 0) return [];
    const made = additions.map(({ anchor, changes }) => ({ anchor, entry: { kind: 'changes' as const, id: this.newId('changes'), ...changes } }));
    const { entries, placed } = placeAfterTurns(this.entries.view(), made);
    if (placed.length > 0) {
      // The entries keep their ids (tool calls, terminals and the open message still find theirs): only the order changes.
      this.entries.reset(entries);
    }
    const ids = new Set(placed.map((e) => e.id));
    return made.map(({ entry }) => (ids.has(entry.id) ? entry.id : undefined));
  }

  setChangesState(id: string, state: ViewEntryOf<'changes'>['state']): void {
    this.setState(id, 'changes', state);
  }

  /** A changes entry's files with the lines `counts` gives for them now (undefined: unchanged). */
  setChangesCounts(id: string, counts: (file: ViewChangedFile) => { readonly added: number; readonly removed: number } | undefined): void {
    const entry = this.entry(id);
    if (entry?.kind !== 'changes') return;
    let changed = false;
    const files = entry.files.map((file) => {
      const now = counts(file);
      if (!now || (now.added === file.added && now.removed === file.removed)) return file;
      changed = true;
      return { ...file, added: now.added, removed: now.removed };
    });
    if (changed) this.entries.put({ ...entry, files });
  }

  addInfo(text: string): void {
    this.closeMessage();
    this.entries.add({ kind: 'info', id: this.newId('info'), text });
  }

  setSession(change: Partial<ViewSessionState>): void {
    if ('modes' in change) this.agentModes = change.modes;
    this.sessionState = { ...this.sessionState, ...change };
    if ('modes' in change || 'configOptions' in change) {
      // One picker per setting: config options supersede the modes they stand for (see toView.modesSuperseded).
      const modes = this.agentModes && !modesSuperseded(this.agentModes, this.sessionState.configOptions) ? this.agentModes : undefined;
      if (modes !== this.sessionState.modes) this.sessionState = { ...this.sessionState, modes };
    }
    this.sessionDirty = true;
    this.changed();
  }

  /**
   * A terminal the agent started, its new output or its exit. The first time, it gets an entry of its own,
   * so every command shows even when no tool call wraps it; a tool call showing the terminal takes over
   * (see {@link upsertTool}). Every tool call showing it is updated.
   */
  updateTerminal(terminalId: string, view: ThreadTerminal): void {
    this.terminals.update(terminalId, view);
  }

  /** A `terminal/create` that failed for a reason other than a refused folder (that is a refusal). */
  addTerminalFailure(command: string, cwd: string | undefined, error: string): void {
    this.terminals.addFailure(command, cwd, error);
  }

  // ---- internals ----------------------------------------------------------------------------------

  private finishUnfinishedTools(status: 'cancelled' | 'interrupted'): void {
    for (const entry of this.entries.view()) {
      if (entry.kind === 'tool' && isUnfinished(entry.status)) this.entries.put({ ...entry, status });
    }
  }

  /** Empties the transcript (no op: the caller says what the webview gets). */
  private clear(): void {
    this.entries.clear();
    this.toolEntries.clear();
    this.toolTurns.clear();
    this.terminals.shown([]);
    this.lastMessage = undefined;
    this.planEntryId = undefined;
    for (const kind of MESSAGE_KINDS) this.keyedMessages[kind].clear();
    this.ownPrompts.clear();
    this.awaitingEcho = [];
    this.plans.clear();
    this.compactions.clear();
  }

  /** Shows exactly these entries from now on: the webview starts over with them. */
  private show(entries: readonly ViewEntry[]): void {
    this.clear();
    this.entries.reset(entries);
    for (const entry of entries) {
      if (entry.kind === 'tool' && !this.toolEntries.has(entry.toolCallId)) {
        this.toolEntries.set(entry.toolCallId, entry.id);
        this.toolTurns.set(entry.toolCallId, this.turn);
      }
    }
    // A terminal kept across a replay goes on following its command.
    this.terminals.shown(entries);
    this.changed();
  }

  private addChunk(kind: MessageKind, messageId: string | undefined, block: ViewContent): void {
    const open = this.lastMessage;
    const last = this.entries.last;
    const continues =
      open !== undefined && open.kind === kind && last !== undefined && last.id === open.id && (messageId === undefined || messageId === open.messageId);
    if (continues) {
      if (block.type === 'text') return this.entries.appendText(open.id, block.text);
      const entry = this.entry(open.id);
      if (entry && (entry.kind === 'agent' || entry.kind === 'user')) this.entries.put({ ...entry, blocks: [...entry.blocks, block] });
      return;
    }
    const id = this.newId(kind);
    if (kind === 'user') this.turn++;
    if (kind === 'thought') this.entries.add({ kind: 'thought', id, text: block.type === 'text' ? block.text : '' });
    else this.entries.add({ kind, id, blocks: [block] });
    this.lastMessage = { kind, id, messageId };
  }

  /**
   * The tool call a permission request is about. An id last seen in an earlier turn is a new call (agents
   * that number calls per turn reuse ids), so the request never lands on an old call's card.
   */
  applyPermissionToolCall(toolCall: ToolCallChange): void {
    this.upsertTool(toolCall, false, true);
  }

  private upsertTool(update: ToolCallChange, isNew: boolean, newInLaterTurn = isNew): void {
    this.closeMessage();
    const existingId = this.toolEntries.get(update.toolCallId);
    // Ids are unique within a session, but some agents (the ACP SDK's example agent) number tool calls per
    // turn: a `tool_call` reusing an id from an earlier turn is a new call, not a change to the old one.
    const reused = newInLaterTurn && existingId !== undefined && (this.toolTurns.get(update.toolCallId) ?? 0) < this.turn;
    const existing = existingId && !reused ? this.entry(existingId) : undefined;
    const base: ViewEntryOf<'tool'> =
      existing?.kind === 'tool'
        ? existing
        : {
            kind: 'tool',
            id: this.newId('tool'),
            toolCallId: update.toolCallId,
            title: update.title ?? (isNew ? '' : l10n.t('Tool call')),
            toolKind: 'other',
            status: 'pending',
            content: [],
            locations: [],
          };
    const next: ViewEntryOf<'tool'> = {
      ...base,
      title: update.title ?? base.title,
      toolKind: update.kind ?? base.toolKind,
      status: update.status ?? base.status,
      content: update.content
        ? this.terminals.keepAgentOwned(
            base.content,
            update.content.map((c) => this.terminals.withLive(toolContentToView(c))),
          )
        : base.content,
      locations: update.locations ? update.locations.map((l) => ({ path: l.path, line: l.line })) : base.locations,
      rawInput: update.rawInput !== undefined ? preview(update.rawInput) : base.rawInput,
    };
    if (existing) this.entries.put(next);
    else {
      this.entries.add(next);
      this.toolEntries.set(update.toolCallId, next.id);
      this.toolTurns.set(update.toolCallId, this.turn);
    }
    for (const content of next.content) if (content.type === 'terminal') this.terminals.shownInTool(content.terminalId);
    // A command the agent runs itself (pi-acp's and codex-acp's `_meta`, ACP v2's agent terminals): this tool call shows it.
    for (const report of update.agentTerminals) this.terminals.agentReport(report, next.id);
  }

  // ---- ACP v2's upserts keyed by id ----------------------------------------------------------------------

  /**
   * The entry of the message with this id, if any. A user message with an id not seen yet, while a prompt of
   * the user waits to be named (no replay under way), is that prompt's echo: it names it.
   */
  private keyedEntry(kind: MessageKind, messageId: string): string | undefined {
    const keyed = this.keyedMessages[kind];
    const id = keyed.get(messageId);
    if (id !== undefined || kind !== 'user' || this.awaitingEcho.length === 0 || this.replaying) return id;
    const prompt = this.awaitingEcho.shift()!;
    keyed.set(messageId, prompt);
    return prompt;
  }

  /** The prompt the user sent first of those not yet named is the user message `messageId` (the agent accepted it). */
  private namePrompt(messageId: string): void {
    const keyed = this.keyedMessages.user;
    if (keyed.has(messageId)) {
      // Its echo came first and named it (or a replayed message has this id): nothing waits for this name.
      const named = keyed.get(messageId)!;
      this.awaitingEcho = this.awaitingEcho.filter((id) => id !== named);
      return;
    }
    const prompt = this.awaitingEcho.shift();
    if (prompt !== undefined) keyed.set(messageId, prompt);
  }

  /** A new message entry keyed by `messageId`. */
  private addKeyedMessage(kind: MessageKind, messageId: string, parts: readonly ContentPart[]): void {
    this.closeMessage();
    const id = this.newId(kind);
    if (kind === 'user') this.turn++;
    if (kind === 'thought') this.entries.add({ kind: 'thought', id, text: thoughtText(parts) });
    else this.entries.add({ kind, id, blocks: parts.map(contentToView) });
    this.keyedMessages[kind].set(messageId, id);
  }

  private upsertMessage(role: MessageRole, messageId: string, content: readonly ContentPart[] | null | undefined): void {
    const id = this.keyedEntry(role, messageId);
    if (id === undefined) return this.addKeyedMessage(role, messageId, content ?? []);
    if (content === undefined || this.ownPrompts.has(id)) return;
    const entry = this.entry(id);
    if (entry?.kind === 'thought') this.entries.put({ ...entry, text: thoughtText(content ?? []) });
    else if (entry?.kind === 'agent' || entry?.kind === 'user') this.entries.put({ ...entry, blocks: (content ?? []).map(contentToView) });
  }

  private appendToMessage(role: MessageRole, messageId: string, part: ContentPart): void {
    const id = this.keyedEntry(role, messageId);
    if (id === undefined) return this.addKeyedMessage(role, messageId, [part]);
    if (this.ownPrompts.has(id)) return;
    if (part.type === 'text') return this.entries.appendText(id, part.text);
    if (role === 'thought') return this.entries.appendText(id, thoughtText([part]));
    const entry = this.entry(id);
    if (entry?.kind === 'agent' || entry?.kind === 'user') this.entries.put({ ...entry, blocks: [...entry.blocks, contentToView(part)] });
  }

  /** A v2 tool call created or patched: absent = unchanged, null = cleared (see ToolCallPatch). */
  private patchTool(patch: ToolCallPatch): void {
    const { entry, existing } = this.toolCallEntry(patch.toolCallId);
    const next: ViewEntryOf<'tool'> = {
      ...entry,
      title: patch.title === undefined ? entry.title : (patch.title ?? l10n.t('Tool call')),
      toolKind: patch.kind === undefined ? entry.toolKind : (patch.kind ?? 'other'),
      status: patch.status === undefined ? entry.status : (patch.status ?? 'pending'),
      content: patch.content === undefined ? entry.content : (patch.content ?? []).map((c) => this.toolContentView(c)),
      locations:
        patch.locations === undefined
          ? entry.locations
          : (patch.locations ?? []).map((l) => (l.line === undefined ? { path: l.path } : { path: l.path, line: l.line })),
      rawInput: patch.rawInput === undefined ? entry.rawInput : patch.rawInput === null ? undefined : preview(patch.rawInput),
    };
    this.putTool(next, existing);
  }

  /** One item appended to a v2 tool call's content (the call created if unknown). */
  private appendToolContent(toolCallId: string, content: ToolContent): void {
    const { entry, existing } = this.toolCallEntry(toolCallId);
    this.putTool({ ...entry, content: [...entry.content, this.toolContentView(content)] }, existing);
  }

  /** The entry of a v2 tool call, or a new one at the protocol's defaults (no title, `other`, `pending`). */
  private toolCallEntry(toolCallId: string): { entry: ViewEntryOf<'tool'>; existing: boolean } {
    this.closeMessage();
    const found = this.toolEntry(toolCallId);
    if (found) return { entry: found, existing: true };
    const entry: ViewEntryOf<'tool'> = {
      kind: 'tool',
      id: this.newId('tool'),
      toolCallId,
      title: l10n.t('Tool call'),
      toolKind: 'other',
      status: 'pending',
      content: [],
      locations: [],
    };
    return { entry, existing: false };
  }

  private putTool(next: ViewEntryOf<'tool'>, existing: boolean): void {
    if (existing) this.entries.put(next);
    else {
      this.entries.add(next);
      this.toolEntries.set(next.toolCallId, next.id);
      this.toolTurns.set(next.toolCallId, this.turn);
    }
    for (const content of next.content) if (content.type === 'terminal') this.terminals.shownInTool(content.terminalId);
  }

  private toolContentView(content: ToolContent): ViewToolContent {
    return this.terminals.withLive(toolContentToView(content));
  }

  /** A v2 plan: replaces the plan with its id wherever it is shown, or shows a new one. */
  private putPlan(planId: string, entries: ViewEntryOf<'plan'>['entries']): void {
    const existing = this.plans.get(planId);
    if (existing !== undefined && this.entry(existing)?.kind === 'plan') return this.entries.put({ kind: 'plan', id: existing, entries });
    this.closeMessage();
    this.plans.set(planId, this.entries.add({ kind: 'plan', id: this.newId('plan'), entries }));
  }

  /** The next chunk starts a new message even if its kind matches (another entry came between). */
  private closeMessage(): void {
    this.lastMessage = undefined;
  }

  private newId(prefix: string): string {
    return `${prefix}-${this.nextId++}`;
  }

  /** A permission's or a changes entry's new state (unchanged: nothing to send). */
  private setState<K extends 'permission' | 'changes'>(id: string, kind: K, state: ViewEntryOf<K>['state']): void {
    const entry = this.entry(id);
    if (entry?.kind === kind && entry.state !== state) this.entries.put({ ...entry, state } as ViewEntry);
  }

  private changed(): void {
    if (this.announcing) return;
    this.announcing = true;
    queueMicrotask(() => {
      this.announcing = false;
      this.changeEmitter.fire();
    });
  }
}
