/** The webview side of the host connection: typed, validated messages both ways. */
import type * as z from 'zod';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

let api: VsCodeApi | undefined;

function vscode(): VsCodeApi {
  api ??= acquireVsCodeApi();
  return api;
}

/** Sends a message to the host (its type is checked here, its content again on the host). */
export function post<T>(message: T): void {
  vscode().postMessage(message);
}

/**
 * Listens to host messages that validate against `schema`; anything else is reported on the console
 * and dropped (a message the view cannot read must not break it).
 */
export function onHostMessage<S extends z.ZodType>(schema: S, handler: (message: z.output<S>) => void): () => void {
  const listener = (event: MessageEvent) => {
    const parsed = schema.safeParse(event.data);
    if (!parsed.success) {
      // eslint-disable-next-line no-console -- the webview's only log is its developer console
      console.warn('ACP Workspace: ignored an invalid message from the host', parsed.error.issues.slice(0, 3));
      return;
    }
    handler(parsed.data);
  };
  window.addEventListener('message', listener);
  return () => window.removeEventListener('message', listener);
}

export function getState<T>(): T | undefined {
  return vscode().getState() as T | undefined;
}

export function setState<T>(state: T): void {
  vscode().setState(state);
}
