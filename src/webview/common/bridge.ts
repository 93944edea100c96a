/**
 * A webview's side of its protocol with the host: typed verbs out, validated events in, and requests
 * paired with their answers by id (see src/shared/ipc.ts). Each webview makes one bridge, typed by its own
 * protocol module, so no call site names a message type.
 */
import * as l10n from '@vscode/l10n';
import type * as z from 'zod/mini';
import { ResponseMessage, type IpcParams, type IpcRequest, type IpcResult } from '../../shared/ipc';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

let api: VsCodeApi | undefined;

/** VS Code hands this out once per webview. */
function vscode(): VsCodeApi {
  api ??= acquireVsCodeApi();
  return api;
}

export interface Bridge<ToHost, FromHost> {
  /** Sends a verb to the host (validated again there). */
  post(message: ToHost): void;
  /** Listens to the host's events that validate (answers to requests go to their request instead). */
  onMessage(handler: (message: Exclude<FromHost, ResponseMessage>) => void): () => void;
  /** Asks the host; resolves with its answer, validated against the request's result schema. */
  request<D extends IpcRequest<unknown, unknown>>(definition: D, params: IpcParams<D>): Promise<IpcResult<D>>;
  /** What the webview keeps across being hidden and window reloads (VS Code stores it with the view). */
  getState(): unknown;
  setState(state: unknown): void;
}

interface Pending {
  readonly result: z.ZodMiniType;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The bridge for one webview. Host messages that do not validate against `fromHost` are reported on the
 * console and dropped: a message the view cannot read must not break it.
 */
export function createBridge<ToHost, FromHost extends { readonly type: string }>(fromHost: z.ZodMiniType<FromHost>): Bridge<ToHost, FromHost> {
  const handlers = new Set<(message: Exclude<FromHost, ResponseMessage>) => void>();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  window.addEventListener('message', (event: MessageEvent) => {
    const parsed = fromHost.safeParse(event.data);
    if (!parsed.success) {
      // eslint-disable-next-line no-console -- the webview's only log is its developer console
      console.warn('ACP Workspace: ignored an invalid message from the host', parsed.error.issues.slice(0, 3));
      return;
    }
    const response = ResponseMessage.safeParse(parsed.data);
    if (response.success) {
      settle(response.data);
      return;
    }
    for (const handler of [...handlers]) handler(parsed.data as Exclude<FromHost, ResponseMessage>);
  });

  function settle(response: ResponseMessage): void {
    const request = pending.get(response.id);
    if (!request) return;
    pending.delete(response.id);
    if (response.error !== undefined) {
      request.reject(new Error(response.error));
      return;
    }
    const result = request.result.safeParse(response.result);
    if (result.success) request.resolve(result.data);
    else request.reject(new Error(l10n.t("The host's answer does not validate: {0}", result.error.issues.map((i) => i.message).join('; '))));
  }

  return {
    post: (message) => vscode().postMessage(message),
    onMessage(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    request<D extends IpcRequest<unknown, unknown>>(definition: D, params: IpcParams<D>): Promise<IpcResult<D>> {
      const id = nextId++;
      return new Promise<IpcResult<D>>((resolve, reject) => {
        pending.set(id, { result: definition.result, resolve: (value) => resolve(value as IpcResult<D>), reject });
        vscode().postMessage({ type: 'request', id, method: definition.method, params });
      });
    },
    getState: () => vscode().getState(),
    setState: (state) => vscode().setState(state),
  };
}
