/** At most `max` tasks at once; the rest wait their turn, first come first served. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  /** Runs `task` as soon as fewer than `max` run (at once when a slot is free); settles as it does. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `active` never dips and lets a newcomer jump the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** How many run now (tests). */
  get running(): number {
    return this.active;
  }

  /** How many wait for a slot (tests). */
  get queued(): number {
    return this.waiting.length;
  }
}
