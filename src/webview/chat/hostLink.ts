/**
 * Whether the extension host that made this chat view still answers it. When the extension host is killed and
 * restarted, VS Code keeps the tab's webview running, but what it sends goes to the dead host and nothing comes
 * back: without this the tab would say "Ready" and swallow a prompt. The view asks (`ping`) when it starts,
 * when a prompt goes, and when the user comes back to it; no answer in {@link ANSWER_MS} means the link is lost
 * (an answer that comes later restores it: the host was only busy).
 */
import { ChatRequests } from '../../shared/chatProtocol';
import { host } from './host';

/** How long the host may take to answer before the view says it is interrupted. */
export const ANSWER_MS = 10_000;

type Listener = () => void;

class HostLink {
  private lostNow = false;
  private readonly listeners = new Set<Listener>();
  private asking: Promise<boolean> | undefined;

  get lost(): boolean {
    return this.lostNow;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Asks the host. `onLost` runs if it does not answer in time (what it returns runs if the answer comes after
   * all: e.g. a prompt put back in the box is taken out again, the host had it).
   */
  check(onLost?: () => (() => void) | void): void {
    const answered = (this.asking ??= this.ask().finally(() => (this.asking = undefined)));
    let undo: (() => void) | void;
    const timer = setTimeout(() => {
      this.set(true);
      undo = onLost?.();
    }, ANSWER_MS);
    void answered.then((ok) => {
      if (!ok) return;
      clearTimeout(timer);
      this.set(false);
      undo?.();
    });
  }

  private ask(): Promise<boolean> {
    return host.request(ChatRequests.ping, {}).then(
      () => true,
      () => false,
    );
  }

  private set(lost: boolean): void {
    if (this.lostNow === lost) return;
    this.lostNow = lost;
    for (const listener of [...this.listeners]) listener();
  }
}

export const hostLink = new HostLink();
