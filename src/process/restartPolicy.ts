/**
 * When an agent that was running exits unexpectedly, restart it, but not forever: at most
 * `maxRestarts` within `windowMs` (like vscode-languageclient's 4-in-3-minutes rule).
 */
import * as l10n from '@vscode/l10n';

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
    return minutes === 1
      ? l10n.t('it stopped {0} times within 1 minute, so it is not restarted again automatically', this.options.maxRestarts + 1)
      : l10n.t('it stopped {0} times within {1} minutes, so it is not restarted again automatically', this.options.maxRestarts + 1, minutes);
  }
}
