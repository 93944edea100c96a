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
  /**
   * Files changed, as ACP v2 says it: each change (`add`, `delete`, `modify` a path; `move`, `copy` from
   * `oldPath`; open-ended) and, when the agent gives it, the patch text (`format` `git_patch`, open-ended).
   */
  | {
      readonly type: 'patch';
      readonly changes: readonly { readonly operation: string; readonly path?: string; readonly oldPath?: string }[];
      readonly patch?: { readonly format: string; readonly text: string };
    }
  | { readonly type: 'unknown'; readonly tag: string; readonly raw: unknown };

/** What one report says about a terminal the agent runs itself (no client terminal behind it: only shown). */
export interface AgentTerminalReport {
  readonly terminalId: string;
  /** The command it runs (ACP v2's `terminal_update`; v1's `_meta` reports do not say). */
  readonly command?: string;
  /** The absolute folder it runs in. */
  readonly cwd?: string;
  /** Output to append (or, with {@link outputReplaces}, all of it so far). */
  readonly output?: string;
  /** `output` is the whole output so far, not more of it (ACP v2's `terminal_update.output` snapshot). */
  readonly outputReplaces?: boolean;
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

/**
 * An upsert of a tool call keyed by its id (ACP v2's `tool_call_update`): a call not seen yet is created
 * (omitted fields at their defaults: no title, kind `other`, status `pending`, no content or locations), a
 * known one is patched. Absent = unchanged, `null` = cleared (the title unset, the kind back to `other`, the
 * status back to `pending`, content, locations and raw input emptied); `content` and `locations` replace the
 * old lists (`[]` clears them too).
 */
export interface ToolCallPatch {
  readonly toolCallId: string;
  readonly title?: string | null;
  readonly kind?: string | null;
  readonly status?: string | null;
  readonly content?: readonly ToolContent[] | null;
  readonly locations?: readonly { readonly path: string; readonly line?: number }[] | null;
  /** What the tool was called with, as the agent sent it. */
  readonly rawInput?: unknown;
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
  /**
   * A whole message keyed by id (ACP v2's `user_message`, `agent_message`, `agent_thought`): it replaces the
   * content of the message with that id (chunks appended to it included), or creates it. `content` absent =
   * unchanged (empty for a new message), `null` or `[]` = cleared.
   */
  | { readonly type: 'messageUpsert'; readonly role: MessageRole; readonly messageId: string; readonly content?: readonly ContentPart[] | null }
  /**
   * A piece appended to the message with this id wherever it is in the transcript (ACP v2's `_chunk`s: chunks
   * of different messages may interleave); a message id not seen yet creates the message.
   */
  | { readonly type: 'messageAppend'; readonly role: MessageRole; readonly messageId: string; readonly content: ContentPart }
  /**
   * The prompt the client sent last was accepted as the user message `messageId` (ACP v2's `session/prompt`
   * answer): a user message with that id is that prompt, which the chat already shows.
   */
  | { readonly type: 'promptAccepted'; readonly messageId: string }
  /** A tool call announced (`isNew`) or changed. */
  | { readonly type: 'toolCall'; readonly isNew: boolean; readonly call: ToolCallChange }
  /** A tool call created or patched by id (ACP v2), with null = cleared: see {@link ToolCallPatch}. */
  | { readonly type: 'toolCallUpsert'; readonly call: ToolCallPatch }
  /** One item appended to a tool call's content (ACP v2's `tool_call_content_chunk`); an unknown id creates the call. */
  | { readonly type: 'toolCallAppend'; readonly toolCallId: string; readonly content: ToolContent }
  /** A terminal the agent runs itself, on its own (ACP v2's `terminal_update` and `terminal_output_chunk`): display only. */
  | { readonly type: 'agentTerminal'; readonly report: AgentTerminalReport }
  /**
   * The agent's plan, whole (each one replaces the last of the turn). With `planId` (ACP v2's `plan_update`)
   * it replaces the plan with that id, in whichever turn it was shown, or shows a new one.
   */
  | {
      readonly type: 'plan';
      readonly planId?: string;
      readonly entries: readonly { readonly content: string; readonly priority: string; readonly status: string }[];
    }
  /** The slash commands the agent offers now. */
  | { readonly type: 'commands'; readonly commands: readonly { readonly name: string; readonly description: string; readonly hint?: string }[] }
  | { readonly type: 'currentMode'; readonly modeId: string }
  | { readonly type: 'configOptions'; readonly options: readonly ConfigOption[] }
  /** The session's title: absent = unchanged, `null` = cleared. */
  | { readonly type: 'sessionInfo'; readonly title?: string | null }
  /**
   * Context used and its size, and the session's cost. v1: an absent `cost` says there is none. With
   * `costPatch` (ACP v2) an absent `cost` leaves the last one shown and `null` clears it.
   */
  | {
      readonly type: 'usage';
      readonly used: number;
      readonly size: number;
      readonly cost?: { readonly amount: number; readonly currency: string } | null;
      readonly costPatch?: true;
    }
  | { readonly type: 'notice'; readonly severity: string; readonly title: string; readonly description?: string }
  /** The agent compacts its context: in_progress, completed, failed, cancelled (open-ended). */
  /** With `upsert` (ACP v2) a later event for the same compaction changes its line in place instead of adding one. */
  | { readonly type: 'compaction'; readonly compactionId: string; readonly status: string; readonly error?: string; readonly upsert?: true }
  /** A piece of a compaction's summary (shown as a thought of its own). */
  | { readonly type: 'compactionSummary'; readonly compactionId: string; readonly content: ContentPart }
  /** Something this client cannot read (an unknown kind, or a known one that did not validate): kept and shown. */
  | { readonly type: 'unknown'; readonly tag: string; readonly raw: unknown; readonly error?: string };

export type TranscriptEventOf<T extends TranscriptEvent['type']> = Extract<TranscriptEvent, { type: T }>;
