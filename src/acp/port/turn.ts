/**
 * A prompt turn as the application sees it, whatever the protocol version: the adapter starts it when it sends
 * the prompt and ends it when the agent says the turn is over (v1: the `session/prompt` answer), fails it, or the
 * agent goes away. The application learns the end of a turn only from here; checkpoints, the queue and
 * notifications hang off {@link Turn.ended}.
 *
 * States: `accepted` (the prompt went out; the agent said nothing in the session yet), `running` (the agent
 * reported something for the session), `waiting` (a permission request of the agent waits for the user), `ended`.
 */
import { Emitter, type Event } from '../../common/events';

export type TurnState = 'accepted' | 'running' | 'waiting' | 'ended';

/** How a turn ended. */
export type TurnEnd =
  /** The agent ended it: `end_turn`, `cancelled`, `max_tokens`, `max_turn_requests`, `refusal` (open-ended). */
  | { readonly reason: 'stopped'; readonly stopReason: string }
  /** The agent (or the client before sending) refused the prompt or failed the turn with an error. */
  | { readonly reason: 'failed'; readonly error: unknown }
  /** The agent went away (exited, the link dropped) before it ended the turn. */
  | { readonly reason: 'agentGone'; readonly error: unknown };

export interface Turn {
  readonly sessionId: string;
  readonly state: TurnState;
  /** How it ended, once it did. */
  readonly end: TurnEnd | undefined;
  readonly onDidChangeState: Event<TurnState>;
  /** Settles (never rejects) when the turn ends. */
  readonly ended: Promise<TurnEnd>;
}

/** The state machine behind a {@link Turn}, driven by a protocol adapter. */
export class TurnRecord implements Turn {
  private current: TurnState = 'accepted';
  private waits = 0;
  private endValue: TurnEnd | undefined;
  private readonly stateEmitter = new Emitter<TurnState>();
  private settle: (end: TurnEnd) => void = () => undefined;
  readonly onDidChangeState: Event<TurnState> = this.stateEmitter.event;
  readonly ended = new Promise<TurnEnd>((resolve) => (this.settle = resolve));

  constructor(readonly sessionId: string) {}

  get state(): TurnState {
    return this.current;
  }

  get end(): TurnEnd | undefined {
    return this.endValue;
  }

  /** The agent reported something for the session during the turn. */
  heard(): void {
    if (this.current === 'accepted') this.move('running');
  }

  /** A permission request of the agent now waits for the user. */
  waitStarted(): void {
    if (this.current === 'ended') return;
    this.waits++;
    this.move('waiting');
  }

  /** A permission request was answered (or withdrawn). */
  waitEnded(): void {
    if (this.current === 'ended' || this.waits === 0) return;
    if (--this.waits === 0) this.move('running');
  }

  finish(end: TurnEnd): void {
    if (this.current === 'ended') return;
    this.endValue = end;
    this.move('ended');
    this.stateEmitter.dispose();
    this.settle(end);
  }

  private move(state: TurnState): void {
    if (this.current === state) return;
    this.current = state;
    this.stateEmitter.fire(state);
  }
}
