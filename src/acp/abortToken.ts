/**
 * The connection's requests take vscode-jsonrpc's `CancellationToken`; plain-Node callers (the history's
 * background paging) hold an `AbortSignal`. This adapts one to the other, so aborting the signal makes the
 * connection send ACP's `$/cancel_request` for the request in flight.
 */
import type { CancellationToken } from './rpcPeer';

/** A token that is cancelled when (or as soon as) `signal` aborts. */
export function tokenFor(signal: AbortSignal): CancellationToken {
  return {
    get isCancellationRequested() {
      return signal.aborted;
    },
    onCancellationRequested: (listener, thisArgs?: unknown, disposables?: Array<{ dispose(): unknown }>) => {
      const handler = () => listener.call(thisArgs, undefined);
      // An already aborted signal never fires again: call back at once, as vscode-jsonrpc's tokens do.
      if (signal.aborted) queueMicrotask(handler);
      else signal.addEventListener('abort', handler, { once: true });
      const disposable = { dispose: () => signal.removeEventListener('abort', handler) };
      disposables?.push(disposable);
      return disposable;
    },
  };
}
