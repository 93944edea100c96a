/**
 * The chat webview with probes, for bench/replay.bench.ts: the same app and store as the shipped bundle,
 * watched from outside. Every main-thread task over 50 ms (PerformanceObserver 'longtask') lands in
 * `window.acpBench.longTasks` with its start, and each time what the chat shows changes (entries shown,
 * the session's status) the page tells the benchmark through its `benchShown` binding. Nothing of it ships.
 */
import '../../src/webview/common/zodSetup';
import { mountChat } from '../../src/webview/chat/mount';
import { ChatStore } from '../../src/webview/chat/store';

interface Probe {
  longTasks: Array<{ start: number; duration: number }>;
  /** `performance.now()` when the app asked for its snapshot (tasks before it are the page's start-up). */
  readyAt: number;
}

const probe: Probe = { longTasks: [], readyAt: 0 };
(window as unknown as { acpBench: Probe }).acpBench = probe;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) probe.longTasks.push({ start: entry.startTime, duration: entry.duration });
}).observe({ type: 'longtask', buffered: true });

declare function benchShown(entries: number, status: string): void;

class ProbedStore extends ChatStore {
  private said = '';

  private report(): void {
    const state = this.state;
    const now = `${state.entries.length} ${state.session?.status ?? ''}`;
    if (now === this.said) return;
    this.said = now;
    benchShown(state.entries.length, state.session?.status ?? '');
  }

  override receive(message: Parameters<ChatStore['receive']>[0]): void {
    super.receive(message);
    this.report();
  }

  protected override flush(): void {
    super.flush();
    this.report();
  }
}

probe.readyAt = performance.now();
mountChat(new ProbedStore());
