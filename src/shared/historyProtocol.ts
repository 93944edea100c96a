/**
 * The Sessions webview view's protocol with the extension host, validated with zod on receipt on both
 * sides. The host keeps the whole (possibly very long) list; the webview renders a virtual window of it:
 * it learns the row count and where the few non-session rows are (enough to place every row, since each
 * kind has a fixed height), and asks for the rows it is about to show ({@link HistoryRequests}, answered by
 * id, see ipc.ts).
 */
import * as z from 'zod/mini';
import { defineRequest, RequestMessage, ResponseMessage } from './ipc';

// ---- rows -----------------------------------------------------------------------------------------

/** [start, end) in UTF-16 code units of the text it belongs to. */
export const Highlight = z.tuple([z.int().check(z.nonnegative()), z.int().check(z.nonnegative())]);

export const RootChip = z.object({
  name: z.string(),
  path: z.string(),
  primary: z.boolean(),
  /** The folder does not exist on this machine (any more). */
  missing: z.boolean(),
});
export type RootChip = z.output<typeof RootChip>;

/** Whether an action can be used on a row, and if not, why (shown as its tooltip). */
export const ActionState = z.object({ enabled: z.boolean(), reason: z.optional(z.string()) });
export type ActionState = z.output<typeof ActionState>;

export const SessionRowActions = z.object({
  open: ActionState,
  resume: ActionState,
  fork: ActionState,
  close: ActionState,
  delete: ActionState,
});
export type SessionRowActions = z.output<typeof SessionRowActions>;

export const SessionRow = z.object({
  kind: z.literal('session'),
  /** Opaque, stable id of the row (agent and session id). */
  key: z.string(),
  agentName: z.string(),
  sessionId: z.string(),
  /** Shown as plain text, never as markup. */
  title: z.string(),
  /** False when `title` is a placeholder (the session has none). */
  titled: z.boolean(),
  highlights: z.array(Highlight),
  /** Epoch ms. */
  updatedAt: z.optional(z.number()),
  roots: z.array(RootChip),
  /** False when only the session's working folder is known (its other folders were never reported). */
  rootsKnown: z.boolean(),
  pinned: z.boolean(),
  hidden: z.boolean(),
  /** Open in a chat in this window. */
  open: z.boolean(),
  /** Known only from this client's own history (the agent does not list sessions, or is not running). */
  local: z.boolean(),
  /** A transcript excerpt around a text-search hit. */
  snippet: z.optional(z.object({ text: z.string(), highlights: z.array(Highlight) })),
  /** The agent's `_meta` for the session, as indented JSON text (shown as text, never trusted as markup). */
  meta: z.optional(z.string()),
  actions: SessionRowActions,
});
export type SessionRow = z.output<typeof SessionRow>;

export const GroupRow = z.object({
  kind: z.literal('group'),
  key: z.string(),
  label: z.string(),
  /** 1: an agent (when all agents are shown), 2: a date group or "Pinned". */
  level: z.union([z.literal(1), z.literal(2)]),
  count: z.int().check(z.nonnegative()),
});
export type GroupRow = z.output<typeof GroupRow>;

export const StatusAction = z.enum(['retry', 'loadMore', 'startAgent']);
export type StatusAction = z.output<typeof StatusAction>;

/** The end of an agent's list: loading, more to load, an error with a retry, or why nothing is listed. */
export const StatusRow = z.object({
  kind: z.literal('status'),
  key: z.string(),
  agentName: z.string(),
  state: z.enum(['loading', 'more', 'error', 'info']),
  message: z.string(),
  action: z.optional(StatusAction),
});
export type StatusRow = z.output<typeof StatusRow>;

export const Row = z.discriminatedUnion('kind', [SessionRow, GroupRow, StatusRow]);
export type Row = z.output<typeof Row>;

/** Row heights in CSS pixels, by kind; session rows are taller while searching (a snippet line). */
export const ROW_HEIGHTS = { session: 46, sessionWithSnippet: 64, group1: 28, group2: 24, status: 32 } as const;

export const SpecialRow = z.object({ index: z.int().check(z.nonnegative()), kind: z.enum(['group1', 'group2', 'status']) });
export type SpecialRow = z.output<typeof SpecialRow>;

export const Scope = z.enum(['workspace', 'folders', 'all']);
export type Scope = z.output<typeof Scope>;

/** The paging bar's control: Stop the background paging, or resume it ("Search All Sessions"). */
export const PagingAction = z.enum(['stop', 'resume']);
export type PagingAction = z.output<typeof PagingAction>;

/**
 * Background paging while a search needs more sessions than are loaded (session/list has no total: it says
 * how many are loaded), with its control. Absent when there is nothing to say (all loaded, no search, or an
 * error, which the agent's status row shows with its Retry).
 */
export const PagingBar = z.object({
  state: z.enum(['loading', 'stopped', 'capped']),
  message: z.string(),
  action: z.optional(PagingAction),
});
export type PagingBar = z.output<typeof PagingBar>;

export const ViewSettings = z.object({
  /** An agent's name, or null for all agents. */
  agent: z.nullable(z.string()),
  scope: Scope,
  query: z.string().check(z.maxLength(500)),
  showHidden: z.boolean(),
});
export type ViewSettings = z.output<typeof ViewSettings>;

// ---- host → webview -------------------------------------------------------------------------------

export const HostToSessions = z.discriminatedUnion('type', [
  /** The list changed: its size and layout; the webview then asks for the rows it shows. */
  z.object({
    type: z.literal('state'),
    version: z.int(),
    settings: ViewSettings,
    /** The `seq` of the last settings message applied (0 before any). */
    settingsSeq: z.int().check(z.nonnegative()),
    agents: z.array(z.object({ name: z.string(), running: z.boolean() })),
    count: z.int().check(z.nonnegative()),
    specials: z.array(SpecialRow),
    searching: z.boolean(),
    /** What the search covered, in words ("Searched the text of 40 of 212 sessions …"). */
    coverage: z.optional(z.string()),
    /** Shown above the list (local history, problems reading it, Restricted Mode). */
    notices: z.array(z.string()),
    /** Shown when there are no rows. */
    empty: z.string(),
    paging: z.optional(PagingBar),
    /** Where the row the webview last said was selected is in this list, so it can stay where it was on screen. */
    anchor: z.optional(z.object({ key: z.string(), index: z.int().check(z.nonnegative()) })),
    /**
     * Rows of this list for the window the webview last asked for (moved with the anchor), so it shows them at
     * once instead of blank rows until it has asked again.
     */
    window: z.optional(z.object({ from: z.int().check(z.nonnegative()), rows: z.array(Row) })),
  }),
  ResponseMessage,
]);
export type HostToSessions = z.output<typeof HostToSessions>;

// ---- requests (webview asks, host answers) ---------------------------------------------------------

export const HistoryRequests = {
  /**
   * Rows [from, to) of list `version`, about to be shown. The answer carries the host's current version:
   * rows of a list that changed meanwhile are none, and the webview asks again for the new one.
   */
  rows: defineRequest(
    'rows',
    z.object({ version: z.int(), from: z.int().check(z.nonnegative()), to: z.int().check(z.nonnegative()) }),
    z.object({ version: z.int(), rows: z.array(Row) }),
  ),
} as const;

// ---- webview → host -------------------------------------------------------------------------------

export const SessionAction = z.enum(['open', 'resume', 'fork', 'close', 'delete', 'rename', 'pin', 'unpin', 'hide', 'unhide', 'copyId']);
export type SessionAction = z.output<typeof SessionAction>;

export const SessionsToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /**
   * The whole settings, changed. `seq` grows with every message, so the webview knows which of its changes
   * a state already includes (a change made before the host answered the previous one builds on it).
   */
  z.object({ type: z.literal('settings'), seq: z.int().check(z.nonnegative()), settings: ViewSettings }),
  RequestMessage,
  z.object({ type: z.literal('action'), action: SessionAction, key: z.string() }),
  z.object({ type: z.literal('status'), action: StatusAction, agentName: z.string() }),
  /** The paging bar's Stop or "Search All Sessions". */
  z.object({ type: z.literal('paging'), action: PagingAction }),
  /** The row the user selected (null: none), which later lists keep in place (`anchor`). */
  z.object({ type: z.literal('selected'), key: z.nullable(z.string()) }),
  /** New Session from the empty list: with the agent the view shows (null: all agents, the usual choice). */
  z.object({ type: z.literal('newSession'), agentName: z.nullable(z.string()) }),
]);
export type SessionsToHost = z.output<typeof SessionsToHost>;
