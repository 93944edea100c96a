/**
 * Time as a dependency: code that waits (a reconnect's backoff, a time limit) takes a {@link Clock}, so tests
 * drive its timers by hand instead of sleeping.
 */

/** A pending timer; only the clock that made it knows what it is. */
export type TimerHandle = object;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `ms` milliseconds (unless cleared). */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Cancels a timer; a timer that already ran or was cleared is ignored. */
  clearTimeout(handle: TimerHandle | undefined): void;
}

/** The real clock: `Date.now` and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => {
    if (handle !== undefined) clearTimeout(handle as NodeJS.Timeout);
  },
};
