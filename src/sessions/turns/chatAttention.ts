/**
 * When a chat needs the user while they look elsewhere: which of its events become a notification (a turn
 * ended, a permission request waits, the agent failed), at most one per chat and kind of event until the
 * user has seen the chat again, and what the badge on the ACP container counts. Plain rules over opaque
 * chat keys; the VS Code layer says what is in view and shows the notifications (see ChatNotifications).
 */
import * as l10n from '@vscode/l10n';
import type { ViewEntry } from '../../shared/chatModel';

/**
 * `acpWorkspace.notifications`: `all` (finished turns, permission requests, failures), `waiting` (only what
 * cannot go on without the user: permission requests and failures), `off` (no notification, no badge).
 */
export type NotificationLevel = 'all' | 'waiting' | 'off';

export const NOTIFICATION_LEVELS: readonly NotificationLevel[] = ['all', 'waiting', 'off'];

/** The setting's value, anything unknown read as the default (`all`). */
export function notificationLevel(value: unknown): NotificationLevel {
  return NOTIFICATION_LEVELS.find((level) => level === value) ?? 'all';
}

export type AttentionEvent =
  /** A turn ended; `stoppedByUser`: the user pressed Stop (or closed the chat): never worth a notice. */
  | { readonly kind: 'finished'; readonly stoppedByUser: boolean }
  /** A permission request waits (each request is noticed once). */
  | { readonly kind: 'permission'; readonly entryId: string }
  /** The agent failed under the chat (it exited or crashed, a turn failed, a restart could not reopen). */
  | { readonly kind: 'failed' };

/** What the badge says: the number of chats that wait for the user, and what each waits for. */
export interface Badge {
  readonly count: number;
  readonly tooltip: string;
}

/** What a chat shows in the badge's tooltip, and how many permission requests wait in it. */
export interface ChatBadgeEntry<Chat> {
  readonly chat: Chat;
  readonly title: string;
  readonly waitingPermissions: number;
}

/** Longest first line of an answer a notification quotes. */
export const ANSWER_LENGTH = 120;

export class ChatAttention<Chat> {
  /** Chats with a finished turn or a failure the user has not seen yet (for the badge). */
  private readonly unseen = new Map<Chat, 'finished' | 'failed'>();
  /** Per chat, what was noticed since the user last saw it: `finished`, `failed`, permission entry ids. */
  private readonly noticed = new Map<Chat, Set<string>>();

  constructor(private readonly level: () => NotificationLevel) {}

  /**
   * An event in a chat; `attended`: the chat is in view in a focused window. Says whether to show a
   * notification now (never twice for the same request, once per chat for finished turns and failures
   * until the chat is seen again).
   */
  event(chat: Chat, event: AttentionEvent, attended: boolean): boolean {
    const level = this.level();
    if (level === 'off' || attended) return false;
    if (event.kind === 'finished' && (event.stoppedByUser || level === 'waiting')) return false;
    if (event.kind !== 'permission' && this.unseen.get(chat) !== 'failed') this.unseen.set(chat, event.kind);
    const key = event.kind === 'permission' ? `permission:${event.entryId}` : event.kind;
    const noticed = this.noticed.get(chat) ?? new Set<string>();
    this.noticed.set(chat, noticed);
    if (noticed.has(key)) return false;
    noticed.add(key);
    return true;
  }

  /** The user sees the chat (in view in a focused window): its finished turn or failure needs no more attention. */
  seen(chat: Chat): boolean {
    const noticed = this.noticed.get(chat);
    // Permission requests stay noticed (each once); the next finished turn or failure may be noticed again.
    noticed?.delete('finished');
    noticed?.delete('failed');
    return this.unseen.delete(chat);
  }

  /**
   * The chat's session is back (its agent restarted, the session reopened): a failure the user did not see is
   * over and no longer counts; a next failure is noticed again. Says whether the badge changes.
   */
  recovered(chat: Chat): boolean {
    this.noticed.get(chat)?.delete('failed');
    if (this.unseen.get(chat) !== 'failed') return false;
    this.unseen.delete(chat);
    return true;
  }

  /** Keeps the permission keys of the requests that still wait (the rest can never come back). */
  prune(chat: Chat, waitingEntryIds: readonly string[]): void {
    const noticed = this.noticed.get(chat);
    if (!noticed) return;
    const waiting = new Set(waitingEntryIds.map((id) => `permission:${id}`));
    for (const key of noticed) if (key.startsWith('permission:') && !waiting.has(key)) noticed.delete(key);
  }

  /** The chat closed. */
  forget(chat: Chat): void {
    this.unseen.delete(chat);
    this.noticed.delete(chat);
  }

  /** The badge for the open chats: each one with a permission request waiting or an unseen end or failure. */
  badge(chats: ReadonlyArray<ChatBadgeEntry<Chat>>): Badge | undefined {
    if (this.level() === 'off') return undefined;
    const lines: string[] = [];
    for (const { chat, title, waitingPermissions } of chats) {
      const unseen = this.unseen.get(chat);
      if (waitingPermissions > 0) lines.push(l10n.t('{0}: a permission request waits', title));
      else if (unseen === 'failed') lines.push(l10n.t('{0}: the agent failed', title));
      else if (unseen === 'finished') lines.push(l10n.t('{0}: finished, not seen yet', title));
    }
    if (lines.length === 0) return undefined;
    return { count: lines.length, tooltip: lines.length === 1 ? lines[0] : lines.join('\n') };
  }
}

/** The notification of a turn that ended on its own: what the answer began with, or why it stopped. */
export function finishedText(title: string, stopReason: string, answer: string | undefined): string {
  switch (stopReason) {
    case 'max_tokens':
      return l10n.t("“{0}” stopped: the answer reached the agent's length limit.", title);
    case 'max_turn_requests':
      return l10n.t("“{0}” stopped: the turn reached the agent's limit of requests.", title);
    case 'refusal':
      return l10n.t('“{0}” stopped: the agent refused to continue.', title);
    case 'cancelled':
      return l10n.t('“{0}” stopped: the agent cancelled the turn.', title);
    default:
      return answer ? l10n.t('“{0}” finished: {1}', title, answer) : l10n.t('“{0}” finished.', title);
  }
}

/** The notification of a failure: the chat and what the session said. */
export function failedText(title: string, message: string): string {
  return `“${title}”: ${bounded(message.replace(/\s+/g, ' ').trim(), 400)}`;
}

/**
 * The first line of the last answer of the last turn (the agent's message after the user's last prompt),
 * markdown markers at its start dropped, at most {@link ANSWER_LENGTH} characters.
 */
export function answerFirstLine(entries: readonly ViewEntry[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry.kind === 'user') return undefined;
    if (entry.kind !== 'agent') continue;
    const text = entry.blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
    const line = text
      .split(/\r?\n/)
      .map((l) =>
        l
          .replace(/^\s*(?:#{1,6}\s+|[-*+]\s+|>\s*|\d+[.)]\s+)*/, '')
          .replace(/\s+/g, ' ')
          .trim(),
      )
      .find((l) => l !== '' && !/^(?:```|~~~|---+|\*\*\*+)/.test(l));
    if (line) return bounded(line, ANSWER_LENGTH);
  }
  return undefined;
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
