/**
 * The chat webview with a frame probe, for bench/chat.bench.ts: the same app and store as the shipped
 * bundle, measured from outside: each frame's main-thread time (applying the patches, rendering, and the
 * layout that forces) lands in `window.acpBench.frameTimes`; `entries()` is how many entries the store holds. The benchmark bundles this itself; nothing of
 * it ships.
 */
import '../../src/webview/common/zodSetup';
import { mountChat } from '../../src/webview/chat/mount';
import { ChatStore } from '../../src/webview/chat/store';

const frameTimes: number[] = [];

class MeasuredStore extends ChatStore {
  protected override flush(): void {
    const started = performance.now();
    super.flush();
    void document.body.offsetHeight;
    frameTimes.push(performance.now() - started);
  }
}

const store = new MeasuredStore();
(window as unknown as { acpBench: { frameTimes: number[]; entries(): number } }).acpBench = { frameTimes, entries: () => store.state.entries.length };
mountChat(store);
