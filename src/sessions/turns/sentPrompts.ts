/**
 * The prompts a chat sent, as the user wrote them (text and chips), for Edit and Retry: the latest ones are
 * kept by their entry's id; an older one, or one replayed from the agent's history, has only its text.
 */
import type { Attachment } from '../../shared/chatProtocol';
import type { Thread } from '../../thread/thread';

/** A prompt as the user wrote it: its text and the chips attached. */
export interface SentPrompt {
  readonly text: string;
  readonly attachments: readonly Attachment[];
}

/** Prompts of a chat kept with their attachments (the latest ones). */
const SENT_PROMPTS_KEPT = 50;

export class SentPrompts {
  /** By their entry's id, oldest first. */
  private readonly sent = new Map<string, SentPrompt>();

  constructor(private readonly thread: Thread) {}

  remember(entryId: string, sent: SentPrompt): void {
    this.sent.set(entryId, sent);
    for (const old of this.sent.keys()) {
      if (this.sent.size <= SENT_PROMPTS_KEPT) break;
      this.sent.delete(old);
    }
  }

  /** What the user typed and attached for the prompt shown as `entryId`. */
  of(entryId: string): SentPrompt | undefined {
    const sent = this.sent.get(entryId);
    if (sent) return sent;
    const entry = this.thread.entry(entryId);
    if (entry?.kind !== 'user') return undefined;
    const text = entry.blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
    return text.trim() ? { text, attachments: [] } : undefined;
  }

  /** The chat's last prompt, if any (what Retry sends again). */
  last(): (SentPrompt & { readonly entryId: string }) | undefined {
    const last = this.thread.snapshot().entries.findLast((entry) => entry.kind === 'user');
    const sent = last && this.of(last.id);
    return last && sent ? { ...sent, entryId: last.id } : undefined;
  }
}
