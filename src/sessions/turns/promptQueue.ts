/**
 * The messages a user sent to a chat while its agent was working, waiting for their turn. The rules:
 *
 * - Messages wait in the order they were sent, at most {@link QUEUE_LIMIT}; one more is refused with a
 *   message that says so ({@link QueueFullError}).
 * - When a turn ends normally, the oldest waiting message is the next turn: one per turn, in order. A message
 *   the user is editing waits, and so do the ones after it (the order holds).
 * - When the user stopped the turn, the turn failed or the agent went away, or the messages come back after
 *   a window reload, nothing is sent by itself: the queue is *held* and says why, until the user says
 *   "Send next" (which sends the oldest and lets the rest follow as turns end), removes the messages, or
 *   clears them.
 * - "Stop and send now" puts a message first and lifts a hold: the turn is stopped, and once the agent
 *   acknowledged it, that message goes.
 *
 * Plain data and rules only: QueuedTurns (queuedTurns.ts) applies them as the chat's turns end.
 */
import * as l10n from '@vscode/l10n';
import { Emitter } from '../../common/events';
import type { Attachment, QueueView } from '../../shared/chatProtocol';

/** How many messages may wait in one chat. */
export const QUEUE_LIMIT = 20;

/** Why the queue does not send by itself (see the module comment). */
export type QueueHold = 'stopped' | 'failed' | 'restored';

export interface QueuedPrompt {
  readonly id: string;
  readonly text: string;
  readonly attachments: readonly Attachment[];
}

export class QueueFullError extends Error {
  constructor() {
    super(l10n.t('The queue is full ({0} messages): wait for the agent, or remove a queued message.', QUEUE_LIMIT));
    this.name = 'QueueFullError';
  }
}

export class PromptQueue {
  private items: QueuedPrompt[] = [];
  private editingId: string | undefined;
  private holdReason: QueueHold | undefined;
  private counter = 0;
  private readonly changed = new Emitter<void>();
  /** Anything shown changed (messages, their order, the hold, the one being edited). */
  readonly onDidChange = this.changed.event;

  get size(): number {
    return this.items.length;
  }

  get held(): QueueHold | undefined {
    return this.holdReason;
  }

  /** The messages, oldest first. */
  get messages(): readonly QueuedPrompt[] {
    return this.items;
  }

  /** Adds a message at the end (or first, for "Stop and send now"). Throws {@link QueueFullError} when full. */
  add(text: string, attachments: readonly Attachment[], position: 'last' | 'first' = 'last'): QueuedPrompt {
    if (this.items.length >= QUEUE_LIMIT) throw new QueueFullError();
    const item: QueuedPrompt = { id: `q${++this.counter}`, text, attachments: [...attachments] };
    if (position === 'first') this.items.unshift(item);
    else this.items.push(item);
    this.fire();
    return item;
  }

  /** Messages kept from before a window reload (bounded): held until the user says. */
  restore(items: ReadonlyArray<{ text: string; attachments: readonly Attachment[] }>): void {
    const room = QUEUE_LIMIT - this.items.length;
    const restored = items.slice(0, Math.max(room, 0)).map((item) => ({ id: `q${++this.counter}`, text: item.text, attachments: [...item.attachments] }));
    if (restored.length === 0) return;
    this.items.push(...restored);
    this.holdReason = 'restored';
    this.fire();
  }

  /** Removes a message; false when it is not queued (sent already, or removed). */
  remove(id: string): boolean {
    const at = this.items.findIndex((item) => item.id === id);
    if (at === -1) return false;
    this.items.splice(at, 1);
    if (this.editingId === id) this.editingId = undefined;
    this.settle();
    this.fire();
    return true;
  }

  /** Empties the queue (and lifts the hold). */
  clear(): void {
    if (this.items.length === 0 && this.holdReason === undefined) return;
    this.items = [];
    this.editingId = undefined;
    this.holdReason = undefined;
    this.fire();
  }

  /** The user opened a message to edit it: it (and what follows) waits until the edit ends. */
  startEditing(id: string): boolean {
    if (!this.items.some((item) => item.id === id)) return false;
    this.editingId = id;
    this.fire();
    return true;
  }

  /** The edit ended: with new text (an empty text removes the message), or without changes. */
  finishEditing(id: string, text?: string): boolean {
    const at = this.items.findIndex((item) => item.id === id);
    if (this.editingId === id) this.editingId = undefined;
    if (at === -1) {
      this.fire();
      return false;
    }
    const item = this.items[at]!;
    if (text !== undefined && text.trim() === '' && item.attachments.length === 0) {
      this.items.splice(at, 1);
      this.settle();
    } else if (text !== undefined) {
      this.items[at] = { ...item, text: text.trim() };
    }
    this.fire();
    return true;
  }

  /** Whatever was being edited is no longer (the chat view was recreated). */
  stopEditing(): void {
    if (this.editingId === undefined) return;
    this.editingId = undefined;
    this.fire();
  }

  /** The turn did not end normally: hold what waits (nothing to hold when the queue is empty). */
  hold(reason: QueueHold): void {
    if (this.items.length === 0 || this.holdReason === reason) return;
    this.holdReason = reason;
    this.fire();
  }

  /** The user said to go on: the queue sends by itself again. */
  release(): void {
    if (this.holdReason === undefined) return;
    this.holdReason = undefined;
    this.fire();
  }

  /** Puts a message first (for "Stop and send now") and lifts the hold; false when it is not queued. */
  moveFirst(id: string): boolean {
    const at = this.items.findIndex((item) => item.id === id);
    if (at === -1) return false;
    const [item] = this.items.splice(at, 1);
    this.items.unshift(item!);
    if (this.editingId === id) this.editingId = undefined;
    this.holdReason = undefined;
    this.fire();
    return true;
  }

  /** Whether a message could be taken now: some wait, none is held, the first one is not being edited. */
  get ready(): boolean {
    const first = this.items[0];
    return first !== undefined && this.holdReason === undefined && first.id !== this.editingId;
  }

  /** Takes the next message to send, if the rules let one go now (see {@link ready}). */
  take(): QueuedPrompt | undefined {
    if (!this.ready) return undefined;
    const item = this.items.shift();
    this.fire();
    return item;
  }

  /** What the chat view shows. */
  view(): QueueView {
    return {
      items: this.items.map((item) => ({
        id: item.id,
        text: item.text,
        attachments: [...item.attachments],
        ...(item.id === this.editingId ? { editing: true } : {}),
      })),
      ...(this.holdReason ? { held: this.holdReason } : {}),
      limit: QUEUE_LIMIT,
    };
  }

  dispose(): void {
    this.changed.dispose();
  }

  /** An empty queue holds nothing. */
  private settle(): void {
    if (this.items.length === 0) this.holdReason = undefined;
  }

  private fire(): void {
    this.changed.fire();
  }
}
