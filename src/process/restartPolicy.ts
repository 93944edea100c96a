/**
 * When an agent that was running exits unexpectedly, restart it, but not forever: at most
 * `maxRestarts` within `windowMs` (like vscode-languageclient's 4-in-3-minutes rule).
 */
export interface RestartPolicyOptions {
  readonly maxRestarts: number;
  readonly windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicyOptions = { maxRestarts: 3, windowMs: 3 * 60 * 1000 };

export class RestartPolicy {
  private readonly restarts: number[] = [];

  constructor(private readonly options: RestartPolicyOptions = DEFAULT_RESTART_POLICY) {}

  /** Records a restart and says whether it is allowed at `now` (ms). */
  allowRestart(now: number): boolean {
    while (this.restarts.length > 0 && now - this.restarts[0]! > this.options.windowMs) this.restarts.shift();
    if (this.restarts.length >= this.options.maxRestarts) return false;
    this.restarts.push(now);
    return true;
  }

  /** Words for the user when the cap is reached. */
  describeCap(): string {
    const minutes = Math.round(this.options.windowMs / 60000);
    return `it stopped ${this.options.maxRestarts + 1} times within ${minutes} minute${minutes === 1 ? '' : 's'}, so it is not restarted again automatically`;
  }
}
