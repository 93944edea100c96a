/**
 * Keeps what a chat tab needs after a window reload in the webview state (VS Code stores it with the tab
 * and hands it to the host's serializer): which session it shows, its folders, and the unsent input.
 */
import type { ViewSessionState } from '../../shared/chatModel';
import { readSavedChatState, type ChatViewState, type Draft, type QueueView } from '../../shared/chatProtocol';
import { host } from './host';

/** What was saved, as far as it reads (the host validates it again when the tab comes back: ChatViewState). */
let saved: Partial<ChatViewState> = readSavedChatState(host.getState());

function save(change: Partial<ChatViewState>): void {
  saved = { ...saved, ...change };
  host.setState(saved);
}

/** The session shown changed (its id arrives once the agent answered; titles change as it works). */
export function persistSession(session: ViewSessionState): void {
  if (session.sessionId === undefined) return;
  // A session without roots yet (a restored tab before it reopened) keeps the ones saved.
  const roots = session.roots.length > 0 ? session.roots.map((root) => root.path) : saved.roots;
  if (saved.sessionId === session.sessionId && saved.agentName === session.agentName && saved.title === session.title && sameList(saved.roots, roots)) return;
  save({ agentName: session.agentName, sessionId: session.sessionId, title: session.title, roots });
}

/** The remote images the user chose to load in this tab. */
export function persistImages(urls: readonly string[]): void {
  save({ images: [...urls] });
}

/** What was saved of them (shown again without asking once the tab is back). */
export function savedImages(): readonly string[] {
  return saved.images ?? [];
}

/** The unsent input; pasted images stay out (they can be large, and the state is stored with the tab). */
export function persistDraft(draft: Draft): void {
  save({ draft: { text: draft.text, attachments: draft.attachments.filter((a) => a.kind !== 'image') } });
}

/** The queued messages, so a window reload does not lose them (pasted images stay out, as in the draft). */
export function persistQueue(queue: QueueView | undefined): void {
  const items = (queue?.items ?? []).map((item) => ({ text: item.text, attachments: item.attachments.filter((a) => a.kind !== 'image') }));
  if (items.length === 0 && !saved.queue?.length) return;
  save({ queue: items });
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((item, i) => item === b[i]));
}

/** What the tab keeps, as saved (what its Reopen link hands to a new extension host: see hostLink.ts). */
export function savedState(): Partial<ChatViewState> {
  return saved;
}
