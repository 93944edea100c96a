/**
 * What an agent did in a session, as the application learns it: the transcript's domain events. Each protocol
 * adapter (today ACP v1, `acp/v1/transcriptEvents.ts`) maps its wire messages to these; the application
 * (`thread/`, `sessions/`) folds them and never sees a wire shape. Plain data, no protocol field names forced:
 * ACP v2's `terminal_update` and v1's `_meta` terminal extensions both arrive as {@link AgentTerminalReport}s.
 */

/** One piece of a message or of a tool's result. */
export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mimeType: string; readonly data: string; readonly uri?: string }
  | { readonly type: 'audio'; readonly mimeType: string }
  | { readonly type: 'link'; readonly uri: string; readonly name: string; readonly title?: string }
  | { readonly type: 'resource'; readonly uri: string; readonly text?: string; readonly mimeType?: string }
  /** A kind of content this client cannot read: kept and shown as the agent sent it (`raw`). */
  | { readonly type: 'unknown'; readonly tag: string; readonly raw: unknown };

/** What a tool call shows: content, a file's change (`oldText` absent: a new file), a terminal's live output. */
export type ToolContent =
  | { readonly type: 'content'; readonly content: ContentPart }
  | { readonly type: 'diff'; readonly path: string; readonly oldText?: string; readonly newText: string }
  | { readonly type: 'terminal'; readonly terminalId: string }
  | { readonly type: 'unknown'; readonly tag: string; readonly raw: unknown };

/** What one report says about a terminal the agent runs itself (no client terminal behind it: only shown). */
export interface AgentTerminalReport {
  readonly terminalId: string;
  /** The absolute folder it runs in. */
  readonly cwd?: string;
  /** Output to append. */
  readonly output?: string;
  readonly exitStatus?: { readonly exitCode: number | null; readonly signal: string | null };
}

/** A tool call, new or changed. Only what is present changes; `content` and `locations` replace the old lists. */
export interface ToolCallChange {
  readonly toolCallId: string;
  readonly title?: string;
  /** What kind of tool (read, edit, execute…; open-ended). */
  readonly kind?: string;
  /** pending, in_progress, completed, failed (open-ended). */
  readonly status?: string;
  readonly content?: readonly ToolContent[];
  readonly locations?: readonly { readonly path: string; readonly line?: number }[];
  /** What the tool was called with, as the agent sent it (absent: unchanged). */
  readonly rawInput?: unknown;
  /** Terminals the agent runs itself that this call reports (usually none). */
  readonly agentTerminals: readonly AgentTerminalReport[];
}

/** A choice of a `select` option, flattened out of its group if it had one. */
export interface ConfigChoice {
  readonly value: string;
  readonly name: string;
  readonly description?: string;
  readonly group?: string;
}

/** A session setting the agent offers (model, mode, thought level…); only the kinds the client renders. */
export type ConfigOption = { readonly id: string; readonly name: string; readonly description?: string; readonly category?: string } & (
  | { readonly type: 'select'; readonly currentValue: string; readonly options: readonly ConfigChoice[] }
  | { readonly type: 'boolean'; readonly currentValue: boolean }
);

export type MessageRole = 'user' | 'agent' | 'thought';

/** Everything an agent streams about a session's transcript and state. */
export type TranscriptEvent =
  /** A piece of a message; pieces with the same `messageId` (or consecutive ones without) form one message. */
  | { readonly type: 'message'; readonly role: MessageRole; readonly messageId?: string; readonly content: ContentPart }
  /** A tool call announced (`isNew`) or changed. */
  | { readonly type: 'toolCall'; readonly isNew: boolean; readonly call: ToolCallChange }
  /** The agent's plan, whole (each one replaces the last of the turn). */
  | {
      readonly type: 'plan';
      readonly entries: readonly { readonly content: string; readonly priority: string; readonly status: string }[];
    }
  /** The slash commands the agent offers now. */
  | { readonly type: 'commands'; readonly commands: readonly { readonly name: string; readonly description: string; readonly hint?: string }[] }
  | { readonly type: 'currentMode'; readonly modeId: string }
  | { readonly type: 'configOptions'; readonly options: readonly ConfigOption[] }
  /** The session's title: absent = unchanged, `null` = cleared. */
  | { readonly type: 'sessionInfo'; readonly title?: string | null }
  | { readonly type: 'usage'; readonly used: number; readonly size: number; readonly cost?: { readonly amount: number; readonly currency: string } }
  | { readonly type: 'notice'; readonly severity: string; readonly title: string; readonly description?: string }
  /** The agent compacts its context: in_progress, completed, failed, cancelled (open-ended). */
  | { readonly type: 'compaction'; readonly compactionId: string; readonly status: string; readonly error?: string }
  /** A piece of a compaction's summary (shown as a thought of its own). */
  | { readonly type: 'compactionSummary'; readonly compactionId: string; readonly content: ContentPart }
  /** Something this client cannot read (an unknown kind, or a known one that did not validate): kept and shown. */
  | { readonly type: 'unknown'; readonly tag: string; readonly raw: unknown; readonly error?: string };

export type TranscriptEventOf<T extends TranscriptEvent['type']> = Extract<TranscriptEvent, { type: T }>;
