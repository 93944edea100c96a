/**
 * When a chat's queued messages go (the rules are in promptQueue.ts): what the user sends while a turn runs
 * waits; a turn that ended normally lets the next one go, a stopped or failed one holds the queue; "Stop and
 * send now" stops the turn and, once the agent acknowledged it (the turn ended), sends that message first.
 */
import * as l10n from '@vscode/l10n';
import type { Attachment, QueueAction } from '../../shared/chatProtocol';
import { PromptQueue } from './promptQueue';
import { errorMessage } from '../../common/errors';

/** What the queue needs of its chat (SessionController). */
export interface QueueChat {
  /** A turn runs, or is about to (its prompt is being built). */
  busy(): boolean;
  /** A turn runs that can be stopped. */
  running(): boolean;
  /** The agent is there (not gone, not restarting). */
  connected(): boolean;
  /** Builds the prompt and runs the turn; resolves when it ended. */
  send(text: string, attachments: readonly Attachment[]): Promise<void>;
  /** Stops the running turn (the turn ends once the agent acknowledged it). */
  stop(): Promise<void>;
  /** Says something in the chat. */
  say(text: string, error?: boolean): void;
  agentName(): string;
}

export type TurnEnding = 'normal' | 'stopped' | 'failed';

export class QueuedTurns {
  readonly queue = new PromptQueue();
  /** "Stop and send now": the turn being stopped ends without holding the queue (its first message goes). */
  private sendNowPending = false;

  constructor(private readonly chat: QueueChat) {}

  /**
   * What the user sent from the prompt box: sent at once when the agent is free, else queued behind the
   * running turn (and behind the messages already waiting, unless those are held: a held queue waits for the
   * user's word, a new message does not). `now`: "Stop and send now" (the message goes first, the turn is
   * stopped). Throws QueueFullError when the queue is full.
   */
  async submit(text: string, attachments: readonly Attachment[], now = false): Promise<void> {
    if (this.chat.busy()) {
      const item = this.queue.add(text, attachments, now ? 'first' : 'last');
      if (now) await this.sendNow(item.id);
      return;
    }
    if (this.queue.size > 0 && this.queue.held === undefined) {
      // The next message is being edited: this one waits behind it.
      this.queue.add(text, attachments);
      return;
    }
    await this.chat.send(text, attachments);
  }

  /** What the user did to the queue (from the chat view). */
  async act(action: QueueAction): Promise<void> {
    switch (action.action) {
      case 'remove':
        this.queue.remove(action.id);
        return;
      case 'sendNow':
        return this.sendNow(action.id);
      case 'edit':
        this.queue.startEditing(action.id);
        return;
      case 'editDone':
        this.queue.finishEditing(action.id, action.text);
        this.next();
        return;
      case 'sendNext':
        if (!this.chat.connected()) {
          this.chat.say(l10n.t('{0} is not connected: restart it or reopen this session, then send the queued messages.', this.chat.agentName()));
          return;
        }
        this.queue.release();
        this.next();
        return;
      case 'clear':
        this.queue.clear();
        return;
    }
  }

  /** A turn ended: a normal end lets the next queued message go; a stop, a failure or a crash holds the queue. */
  turnEnded(ending: TurnEnding): void {
    if (this.sendNowPending) this.sendNowPending = false;
    else if (ending !== 'normal') this.queue.hold(ending);
    this.next();
  }

  /** Sends the next queued message when the rules let it go. */
  next(): void {
    if (this.chat.busy() || !this.chat.connected()) return;
    const message = this.queue.take();
    if (!message) return;
    this.chat.send(message.text, message.attachments).catch((error: unknown) => {
      this.chat.say(l10n.t('A queued message could not be sent: {0}', errorMessage(error)), true);
    });
  }

  /** "Stop and send now": the message goes first; the turn is stopped and, once it ended, the message is sent. */
  private async sendNow(id: string): Promise<void> {
    if (!this.queue.moveFirst(id)) return;
    if (this.chat.running()) {
      this.sendNowPending = true;
      await this.chat.stop();
    } else {
      this.next();
    }
  }
}
