/**
 * The chat webview's protocol with the extension host, validated with zod on receipt on both sides.
 * Verbs go to the host ({@link ChatToHost}); `snapshot`/`patch` events go to the webview ({@link HostToChat}),
 * which acknowledges each patch once it rendered it, so the host posts at most one patch per animation
 * frame whatever the agent's rate; requests ({@link ChatRequests}) are answered by id (see ipc.ts).
 */
import * as z from 'zod/mini';
import { ChatOp, ViewEntry, ViewSessionState } from './chatModel';
import { defineRequest, RequestMessage, ResponseMessage } from './ipc';

// ---- host → webview -------------------------------------------------------------------------------

export const MentionItem = z.object({
  /** Absolute path. */
  path: z.string(),
  /** Shown: path relative to its root, prefixed with the root's name in a multi-root session. */
  label: z.string(),
  root: z.string(),
});
export type MentionItem = z.output<typeof MentionItem>;

// ---- requests (webview asks, host answers) ---------------------------------------------------------

export const ChatRequests = {
  /** Files of the session's folders whose path contains `query` (for an `@` mention). */
  mentions: defineRequest('mentions', z.object({ query: z.string().check(z.maxLength(1000)) }), z.array(MentionItem)),
  /**
   * A remote image in agent text that the user asked to see, fetched by the host (the webview loads nothing
   * from the network) and answered as a `data:` URL.
   */
  /**
   * Whether the extension host that made the view still answers it (an extension host killed and restarted
   * leaves the view running, talking to no one; see src/webview/chat/hostLink.ts).
   */
  ping: defineRequest('ping', z.object({}), z.object({})),
  loadImage: defineRequest(
    'loadImage',
    z.object({ url: z.string().check(z.maxLength(8192)) }),
    z.object({ dataUrl: z.string().check(z.regex(/^data:image\/[\w.+-]+;base64,/)) }),
  ),
} as const;

/**
 * A change too large for one message (a long replayed history) comes in pieces: `more` says that patches of
 * the same change follow, and about how many. The webview keeps showing what it showed until the piece
 * without `more` arrived, then shows the change whole.
 */
const more = z.optional(z.int().check(z.positive()));

export const HostToChat = z.discriminatedUnion('type', [
  /** The whole state: after `ready`, and whenever the webview was recreated (`more`: its entries continue in patches). */
  z.object({
    type: z.literal('snapshot'),
    session: ViewSessionState,
    entries: z.array(ViewEntry),
    draft: z.optional(z.lazy(() => Draft)),
    queue: z.optional(z.lazy(() => QueueView)),
    more,
  }),
  /** Changes since the last patch; the webview answers `rendered` with the same `seq`. */
  z.object({ type: z.literal('patch'), seq: z.number(), ops: z.array(ChatOp), more }),
  ResponseMessage,
  /** Add a context chip (the active editor's selection, a file). */
  z.object({ type: z.literal('addAttachment'), attachment: z.lazy(() => Attachment) }),
  /** `deferred`: asked before the view was up; taken only if the tab still has the keyboard. */
  z.object({ type: z.literal('focusInput'), deferred: z.optional(z.boolean()) }),
  /** The messages waiting for their turn (kept by the host; see src/sessions/turns/promptQueue.ts). */
  z.object({ type: z.literal('queue'), queue: z.lazy(() => QueueView) }),
]);
export type HostToChat = z.output<typeof HostToChat>;

// ---- webview → host -------------------------------------------------------------------------------

export const Attachment = z.discriminatedUnion('kind', [
  /** A file mentioned with @ (from any root). */
  z.object({ kind: z.literal('file'), path: z.string(), label: z.string() }),
  /** Lines of a file, e.g. the active editor's selection. */
  z.object({ kind: z.literal('selection'), path: z.string(), label: z.string(), startLine: z.number(), endLine: z.number(), text: z.string() }),
  /** A pasted or dropped image (base64 data, no data: prefix). */
  z.object({ kind: z.literal('image'), label: z.string(), mimeType: z.string(), data: z.string() }),
]);
export type Attachment = z.output<typeof Attachment>;

/** What the user typed and attached but did not send. */
export const Draft = z.object({ text: z.string(), attachments: z.array(Attachment) });
export type Draft = z.output<typeof Draft>;

/** A message waiting in the queue, as kept across a window reload. */
export const QueuedMessage = z.object({ text: z.string(), attachments: z.array(Attachment) });
export type QueuedMessage = z.output<typeof QueuedMessage>;

/** The queue as the chat shows it: the messages oldest first, and why it does not send by itself (if so). */
export const QueueView = z.object({
  items: z.array(z.extend(QueuedMessage, { id: z.string(), editing: z.optional(z.boolean()) })),
  held: z.optional(z.enum(['stopped', 'failed', 'restored'])),
  limit: z.number(),
});
export type QueueView = z.output<typeof QueueView>;

/** What the user does to the queue (`id`: a queued message). */
export const QueueAction = z.discriminatedUnion('action', [
  z.object({ action: z.literal('remove'), id: z.string() }),
  /** Stop the running turn and send this message as soon as the agent acknowledged it. */
  z.object({ action: z.literal('sendNow'), id: z.string() }),
  z.object({ action: z.literal('edit'), id: z.string() }),
  /** The edit ended: `text` saved (empty removes the message), or none when cancelled. */
  z.object({ action: z.literal('editDone'), id: z.string(), text: z.optional(z.string()) }),
  /** A held queue: send the oldest message now and let the others follow. */
  z.object({ action: z.literal('sendNext') }),
  z.object({ action: z.literal('clear') }),
]);
export type QueueAction = z.output<typeof QueueAction>;

/** Attachments are one chip per file or range: adding the same one twice changes nothing. */
export function withAttachment(current: readonly Attachment[], added: Attachment): Attachment[] {
  const key = (a: Attachment) =>
    a.kind === 'file' ? `file:${a.path}` : a.kind === 'selection' ? `selection:${a.path}:${a.startLine}-${a.endLine}:${a.text.length}` : `image:${a.data}`;
  return current.some((a) => key(a) === key(added)) ? [...current] : [...current, added];
}

/** What an error's buttons and the session header's actions ask for. */
export const ChatAction = z.enum(['restart', 'reopen', 'signIn', 'setToken', 'showLog', 'reopenWithCurrentFolders', 'messageSizeSetting', 'openSettings']);
export type ChatAction = z.output<typeof ChatAction>;

export const ChatToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('rendered'), seq: z.number() }),
  /** Sent at once when the agent is ready, else queued; `now`: stop the running turn and send this at once. */
  z.object({ type: z.literal('prompt'), text: z.string(), attachments: z.array(Attachment), now: z.optional(z.boolean()) }),
  z.object({ type: z.literal('queue'), queue: QueueAction }),
  z.object({ type: z.literal('cancel') }),
  /** An earlier prompt, edited: sent in a fork of the session when the agent can fork, else as a new prompt. */
  z.object({ type: z.literal('editPrompt'), entryId: z.string(), text: z.string().check(z.maxLength(1_000_000)) }),
  /** The last prompt again (same text and attachments); `undoFirst`: undo its turn's file changes first (confirmed). */
  z.object({ type: z.literal('retry'), undoFirst: z.boolean() }),
  z.object({ type: z.literal('permission'), entryId: z.string(), optionId: z.string() }),
  z.object({ type: z.literal('setMode'), modeId: z.string() }),
  z.object({ type: z.literal('setModel'), modelId: z.string() }),
  z.object({ type: z.literal('setConfig'), configId: z.string(), value: z.union([z.string(), z.boolean()]) }),
  z.object({ type: z.literal('openLocation'), path: z.string(), line: z.optional(z.number()) }),
  z.object({ type: z.literal('openDiff'), entryId: z.string(), index: z.number() }),
  /** A file of a `changes` entry: VS Code's diff editor, before the turn ↔ now. */
  z.object({ type: z.literal('openChange'), entryId: z.string(), index: z.number() }),
  /** A `changes` entry's buttons: open the review, undo the turn (after a confirmation), redo it. */
  z.object({ type: z.literal('changes'), entryId: z.string(), action: z.enum(['review', 'undo', 'redo']) }),
  z.object({ type: z.literal('showTerminal'), terminalId: z.string() }),
  RequestMessage,
  z.object({ type: z.literal('attachSelection') }),
  z.object({ type: z.literal('action'), action: ChatAction, methodId: z.optional(z.string()) }),
  /** The unsent input and context, kept by the host so they survive the panel being hidden. */
  z.object({ type: z.literal('draft'), draft: Draft }),
  z.object({ type: z.literal('copy'), text: z.string() }),
  /** A link in agent text: the host opens web links in the browser and paths in the editor. */
  z.object({ type: z.literal('openLink'), href: z.string() }),
]);
export type ChatToHost = z.output<typeof ChatToHost>;

/**
 * The command a chat tab left by a dead extension host runs from its Reopen link (a `command:` link is the only
 * way such a tab reaches the new extension host: its messages go to the old one). Its argument: the tab's
 * {@link ChatViewState}, with what the user typed.
 */
export const REOPEN_INTERRUPTED_CHAT_COMMAND = 'acpWorkspace.reopenInterruptedChat';

// ---- kept by the webview across window reloads ----------------------------------------------------

/**
 * What a chat tab keeps in its webview state, so that after a window reload the restored tab can reopen
 * its session (VS Code hands it to the host's serializer). Read with zod: it comes back from storage.
 */
export const ChatViewState = z.object({
  agentName: z.string().check(z.minLength(1)),
  sessionId: z.string().check(z.minLength(1)),
  title: z.optional(z.string()),
  /** `[cwd, ...additionalDirectories]` as the session had them. */
  roots: z.optional(z.array(z.string().check(z.minLength(1)))),
  draft: z.optional(Draft),
  /** Remote images the user chose to load in this tab (their URLs): shown again when the tab is. */
  images: z.optional(z.array(z.string())),
  /** Messages that waited in the queue (held when the tab comes back); unreadable ones are dropped. */
  queue: z.catch(z.optional(z.array(QueuedMessage).check(z.maxLength(20))), undefined),
});
export type ChatViewState = z.output<typeof ChatViewState>;

/**
 * What a chat tab's webview reads back of its own state (`getState()` after a reload), field by field: one
 * that does not read as {@link ChatViewState}'s is dropped (and the URLs of images that are not strings), so
 * a damaged or older state cannot break the chat. The host reads it whole again when the tab comes back.
 */
const SavedChatState = z.catch(
  z.object({
    agentName: z.catch(z.optional(ChatViewState.shape.agentName), undefined),
    sessionId: z.catch(z.optional(ChatViewState.shape.sessionId), undefined),
    title: z.catch(ChatViewState.shape.title, undefined),
    roots: z.catch(ChatViewState.shape.roots, undefined),
    draft: z.catch(ChatViewState.shape.draft, undefined),
    images: z.catch(
      z.optional(
        z.pipe(
          z.array(z.unknown()),
          z.transform((urls) => urls.filter((url): url is string => typeof url === 'string')),
        ),
      ),
      undefined,
    ),
    queue: ChatViewState.shape.queue,
  }),
  {},
);

/** A chat tab's saved webview state as far as it reads ({@link SavedChatState}); a field that does not is absent. */
export function readSavedChatState(state: unknown): Partial<ChatViewState> {
  const read: Partial<ChatViewState> = SavedChatState.parse(state);
  return Object.fromEntries(Object.entries(read).filter(([, value]) => value !== undefined));
}
