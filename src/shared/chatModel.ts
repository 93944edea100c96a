/**
 * The chat's view model: plain, JSON-serializable data the host builds from ACP updates (src/thread/)
 * and the chat webview renders. Only this crosses to the webview, never ACP objects as received.
 * No `vscode`, no Node.
 */
import * as l10n from '@vscode/l10n';
import * as z from 'zod/mini';

/** A prompt or message block, simplified for display. */
export const ViewContent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), mimeType: z.string(), dataUrl: z.optional(z.string()), uri: z.optional(z.string()) }),
  z.object({ type: z.literal('audio'), mimeType: z.string() }),
  z.object({ type: z.literal('link'), uri: z.string(), name: z.string(), title: z.optional(z.string()) }),
  z.object({ type: z.literal('resource'), uri: z.string(), text: z.optional(z.string()), mimeType: z.optional(z.string()) }),
  z.object({ type: z.literal('unknown'), tag: z.string(), raw: z.string() }),
]);
export type ViewContent = z.output<typeof ViewContent>;

export const ExitStatusView = z.object({ exitCode: z.optional(z.nullable(z.number())), signal: z.optional(z.nullable(z.string())) });

export const ViewToolContent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('content'), content: ViewContent }),
  z.object({
    type: z.literal('diff'),
    path: z.string(),
    oldText: z.optional(z.nullable(z.string())),
    newText: z.string(),
    added: z.number(),
    removed: z.number(),
  }),
  z.object({
    type: z.literal('terminal'),
    terminalId: z.string(),
    command: z.optional(z.string()),
    /** The real path it runs in. */
    cwd: z.optional(z.string()),
    output: z.optional(z.string()),
    truncated: z.optional(z.boolean()),
    exitStatus: z.optional(ExitStatusView),
    /**
     * The agent runs the command itself and reports its output (a tool call's `_meta`, as pi-acp and codex-acp
     * do; ACP v2's agent-owned terminals): there is no client terminal to show it in.
     */
    agentOwned: z.optional(z.boolean()),
  }),
  z.object({ type: z.literal('unknown'), tag: z.string(), raw: z.string() }),
]);
export type ViewToolContent = z.output<typeof ViewToolContent>;

export const ViewLocation = z.object({ path: z.string(), line: z.optional(z.number()) });

export const PermissionOptionView = z.object({ optionId: z.string(), name: z.string(), kind: z.string() });

export const PermissionState = z.union([z.literal('pending'), z.literal('cancelled'), z.object({ chosen: z.string(), name: z.string(), kind: z.string() })]);

/** A file a turn changed (see the `changes` entry). */
export const ViewChangedFile = z.object({
  /** The folder's name and real path. */
  root: z.string(),
  rootPath: z.string(),
  /** Relative to the folder, `/`-separated; `oldPath` for a rename. */
  path: z.string(),
  oldPath: z.optional(z.string()),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  added: z.number(),
  removed: z.number(),
  binary: z.boolean(),
});
export type ViewChangedFile = z.output<typeof ViewChangedFile>;

/** Actions an error entry can offer (`messageSizeSetting`: the agent message size limit setting). */
export const ErrorAction = z.enum(['restart', 'reopen', 'signIn', 'setToken', 'showLog', 'messageSizeSetting', 'openSettings']);
export type ErrorAction = z.output<typeof ErrorAction>;

const id = z.string();

/** One item of the transcript. Entries are appended or updated in place, never reordered. */
export const ViewEntry = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user'), id, blocks: z.array(ViewContent) }),
  z.object({ kind: z.literal('agent'), id, blocks: z.array(ViewContent) }),
  z.object({ kind: z.literal('thought'), id, text: z.string() }),
  z.object({
    kind: z.literal('tool'),
    id,
    toolCallId: z.string(),
    title: z.string(),
    toolKind: z.string(),
    status: z.string(),
    content: z.array(ViewToolContent),
    locations: z.array(ViewLocation),
    rawInput: z.optional(z.string()),
  }),
  z.object({
    kind: z.literal('plan'),
    id,
    entries: z.array(z.object({ content: z.string(), priority: z.string(), status: z.string() })),
  }),
  z.object({ kind: z.literal('notice'), id, severity: z.string(), title: z.string(), description: z.optional(z.string()) }),
  z.object({
    kind: z.literal('permission'),
    id,
    title: z.string(),
    toolCallId: z.optional(z.string()),
    options: z.array(PermissionOptionView),
    state: PermissionState,
  }),
  z.object({ kind: z.literal('turnEnd'), id, stopReason: z.string(), durationMs: z.optional(z.number()) }),
  /** `said`: the agent's own words (its last stderr lines, its error's details); `advice`: the likely cause and next step. */
  z.object({
    kind: z.literal('error'),
    id,
    message: z.string(),
    actions: z.array(ErrorAction),
    said: z.optional(z.array(z.string())),
    advice: z.optional(z.string()),
  }),
  /** A request of the agent the client refused (see refusalText.ts); `command` for a terminal. */
  z.object({
    kind: z.literal('refusal'),
    id,
    operation: z.string(),
    path: z.string(),
    message: z.string(),
    command: z.optional(z.string()),
    /** A refused write whose file the agent wrote with its own tools anyway (seen on disk when the turn ended). */
    writtenAnyway: z.optional(z.boolean()),
  }),
  z.object({ kind: z.literal('info'), id, text: z.string() }),
  /**
   * A command the agent ran through `terminal/create`, shown on its own until a tool call shows the same
   * terminal (`inToolCall`, then only the tool call shows it). One that could not start has no
   * `terminalId` and says why in `error`.
   */
  z.object({
    kind: z.literal('terminal'),
    id,
    terminalId: z.optional(z.string()),
    command: z.string(),
    cwd: z.optional(z.string()),
    output: z.optional(z.string()),
    truncated: z.optional(z.boolean()),
    exitStatus: z.optional(ExitStatusView),
    error: z.optional(z.string()),
    inToolCall: z.boolean(),
  }),
  /**
   * What a turn changed on disk in the session's folders (compared with the checkpoint taken before it,
   * whoever wrote: the client for the agent, the agent's own tools, a command it ran). `undone`: restored to
   * before the turn (Redo offered); `unavailable`: its checkpoint was removed to stay within the storage limit.
   */
  z.object({
    kind: z.literal('changes'),
    id,
    checkpointId: z.string(),
    files: z.array(ViewChangedFile),
    state: z.enum(['done', 'undone', 'unavailable']),
    /** Changed files too large to capture (listed, not restorable). */
    skipped: z.optional(z.number()),
  }),
  z.object({ kind: z.literal('unknown'), id, tag: z.string(), raw: z.string(), error: z.optional(z.string()) }),
]);
export type ViewEntry = z.output<typeof ViewEntry>;
export type ViewEntryOf<K extends ViewEntry['kind']> = Extract<ViewEntry, { kind: K }>;

export const ViewConfigOption = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('select'),
    id: z.string(),
    name: z.string(),
    category: z.optional(z.string()),
    description: z.optional(z.string()),
    currentValue: z.string(),
    options: z.array(z.object({ value: z.string(), name: z.string(), description: z.optional(z.string()), group: z.optional(z.string()) })),
  }),
  z.object({
    type: z.literal('boolean'),
    id: z.string(),
    name: z.string(),
    category: z.optional(z.string()),
    description: z.optional(z.string()),
    currentValue: z.boolean(),
  }),
]);
export type ViewConfigOption = z.output<typeof ViewConfigOption>;

export const SessionStatus = z.enum(['starting', 'loading', 'idle', 'running', 'disconnected']);
export type SessionStatus = z.output<typeof SessionStatus>;

/** Everything about the session besides the transcript (small: sent whole when it changes). */
export const ViewSessionState = z.object({
  agentName: z.string(),
  sessionId: z.optional(z.string()),
  title: z.optional(z.string()),
  status: SessionStatus,
  /** Why the session is disconnected or what it is waiting for, in words. */
  statusDetail: z.optional(z.string()),
  /** The session's folders, the primary first; `withdrawn` ones were taken back and can no longer be reached. */
  roots: z.array(z.object({ name: z.string(), path: z.string(), primary: z.boolean(), withdrawn: z.optional(z.boolean()) })),
  rootsStale: z.optional(z.string()),
  /** How the agent's process is confined (`acpWorkspace.sandbox`): a short label, every path in `detail`. */
  confinement: z.optional(z.object({ confined: z.boolean(), label: z.string(), detail: z.string(), pending: z.optional(z.string()) })),
  modes: z.optional(
    z.object({ currentModeId: z.string(), available: z.array(z.object({ id: z.string(), name: z.string(), description: z.optional(z.string()) })) }),
  ),
  /** The unstable `models` of the setup answer; the picker only when no config option has category `model`. */
  models: z.optional(
    z.object({ currentModelId: z.string(), available: z.array(z.object({ id: z.string(), name: z.string(), description: z.optional(z.string()) })) }),
  ),
  configOptions: z.array(ViewConfigOption),
  commands: z.array(z.object({ name: z.string(), description: z.string(), hint: z.optional(z.string()) })),
  usage: z.optional(z.object({ used: z.number(), size: z.number(), cost: z.optional(z.object({ amount: z.number(), currency: z.string() })) })),
  prompt: z.object({ image: z.boolean(), audio: z.boolean(), embeddedContext: z.boolean() }),
});
export type ViewSessionState = z.output<typeof ViewSessionState>;

/** A change to the transcript or session state, applied in order. */
export const ChatOp = z.discriminatedUnion('op', [
  /** Add (if new) or replace an entry. */
  z.object({ op: z.literal('entry'), entry: ViewEntry }),
  /** Append text to the last text block of an agent/user/thought entry (the streaming fast path). */
  z.object({ op: z.literal('append'), id: z.string(), text: z.string() }),
  z.object({ op: z.literal('session'), state: ViewSessionState }),
  /** Forget every entry (the history is about to be replayed by `session/load`). */
  z.object({ op: z.literal('reset') }),
]);
export type ChatOp = z.output<typeof ChatOp>;

/** Applies ops to a transcript in place (both sides use it, so they agree on what an op means). */
export function applyOps(entries: ViewEntry[], index: Map<string, number>, ops: readonly ChatOp[]): ViewSessionState | undefined {
  let session: ViewSessionState | undefined;
  for (const op of ops) {
    switch (op.op) {
      case 'entry': {
        const at = index.get(op.entry.id);
        if (at === undefined) {
          index.set(op.entry.id, entries.length);
          entries.push(op.entry);
        } else {
          entries[at] = op.entry;
        }
        break;
      }
      case 'append': {
        const at = index.get(op.id);
        if (at === undefined) break;
        entries[at] = appendText(entries[at]!, op.text);
        break;
      }
      case 'session':
        session = op.state;
        break;
      case 'reset':
        entries.length = 0;
        index.clear();
        break;
    }
  }
  return session;
}

/** The entry with `text` appended to its last text (a new text block when the last block is not text). */
export function appendText(entry: ViewEntry, text: string): ViewEntry {
  if (entry.kind === 'thought') return { ...entry, text: entry.text + text };
  if (entry.kind !== 'agent' && entry.kind !== 'user') return entry;
  const blocks = entry.blocks.slice();
  const last = blocks[blocks.length - 1];
  if (last && last.type === 'text') blocks[blocks.length - 1] = { type: 'text', text: last.text + text };
  else blocks.push({ type: 'text', text });
  return { ...entry, blocks };
}

/**
 * A chat tab's title: the session's title, else the folder it works in (sessions started at once, one per
 * folder, are told apart), then the agent.
 */
export function chatTitle(session: Pick<ViewSessionState, 'title' | 'agentName' | 'roots'>): string {
  const primary = session.roots.find((root) => root.primary);
  const title = session.title ?? (primary ? l10n.t('New session in {0}', primary.name) : l10n.t('New session'));
  return `${title} · ${session.agentName}`;
}
