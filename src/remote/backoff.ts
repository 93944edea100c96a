/**
 * How long to wait before each attempt to reconnect to a remote agent: exponential (1 s, 2 s, 4 s … capped at
 * 30 s) with jitter, so that many clients of one restarted server do not all come back in the same instant; and
 * when to give up (after a number of attempts, or once the link has been down for a while), so a server that is
 * gone for good does not keep the client trying forever.
 */

export interface BackoffOptions {
  /** The first wait. Default 1 s. */
  readonly initialMs?: number;
  /** The longest wait. Default 30 s. */
  readonly maxMs?: number;
  /** Attempts before giving up. Default 10. */
  readonly maxAttempts?: number;
  /** Time since the link went down after which no attempt is planned any more. Default 5 minutes. */
  readonly giveUpAfterMs?: number;
  /** Each wait varies by up to this fraction either way (0 to 1). Default 0.2. */
  readonly jitter?: number;
  /** A number in [0, 1) (tests pass a fixed one). Default Math.random. */
  readonly random?: () => number;
}

export const DEFAULT_BACKOFF = { initialMs: 1000, maxMs: 30_000, maxAttempts: 10, giveUpAfterMs: 5 * 60_000, jitter: 0.2 } as const;

/** The waits of one outage: {@link begin} when the link drops, {@link next} before each attempt, {@link reset} once reconnected. */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly jitter: number;
  private readonly random: () => number;
  readonly maxAttempts: number;
  readonly giveUpAfterMs: number;
  private attemptsPlanned = 0;
  private downSince: number | undefined;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = Math.max(1, options.initialMs ?? DEFAULT_BACKOFF.initialMs);
    this.maxMs = Math.max(this.initialMs, options.maxMs ?? DEFAULT_BACKOFF.maxMs);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_BACKOFF.maxAttempts);
    this.giveUpAfterMs = options.giveUpAfterMs ?? DEFAULT_BACKOFF.giveUpAfterMs;
    this.jitter = Math.min(1, Math.max(0, options.jitter ?? DEFAULT_BACKOFF.jitter));
    this.random = options.random ?? Math.random;
  }

  /** Attempts planned in this outage so far. */
  get attempts(): number {
    return this.attemptsPlanned;
  }

  /** The link went down at `now` (ms); a second call in the same outage keeps the first time. */
  begin(now: number): void {
    this.downSince ??= now;
  }

  /**
   * The wait before the next attempt, or undefined when it is time to give up (the attempts are used up, or the
   * link has been down for {@link giveUpAfterMs} by the time that attempt would start).
   */
  next(now: number): number | undefined {
    this.begin(now);
    if (this.attemptsPlanned >= this.maxAttempts) return undefined;
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.attemptsPlanned);
    const spread = base * this.jitter * (2 * this.random() - 1);
    const wait = Math.round(Math.min(this.maxMs, Math.max(this.initialMs / 2, base + spread)));
    if (now + wait - this.downSince! >= this.giveUpAfterMs) return undefined;
    this.attemptsPlanned++;
    return wait;
  }

  /** Connected again: the next outage starts from the first wait. */
  reset(): void {
    this.attemptsPlanned = 0;
    this.downSince = undefined;
  }
}
