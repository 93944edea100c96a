/**
 * Requests between a webview and the host, paired by id: the webview asks (`request`), the host answers
 * (`response`) with the result or an error, and each side validates what it gets against the request's
 * definition. Each webview's protocol module (chatProtocol.ts, historyProtocol.ts) defines its requests next
 * to its verbs (webview → host) and its events (host → webview), like GitLens's per-webview `protocol.ts`.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';

// The protocols use zod/mini (tree-shakable: each webview bundles only the schema kinds it uses), which leaves
// error messages to a locale: English, as classic zod on the host has it, whichever module loads first.
z.config(en());

/** One request a webview makes: its method, and the shapes of its params and result. */
export interface IpcRequest<P, R> {
  readonly method: string;
  readonly params: z.ZodMiniType<P>;
  readonly result: z.ZodMiniType<R>;
}

export function defineRequest<P, R>(method: string, params: z.ZodMiniType<P>, result: z.ZodMiniType<R>): IpcRequest<P, R> {
  return { method, params, result };
}

export type IpcParams<D> = D extends IpcRequest<infer P, unknown> ? P : never;
export type IpcResult<D> = D extends IpcRequest<unknown, infer R> ? R : never;

/** webview → host: a request, answered by a {@link ResponseMessage} with the same id. */
export const RequestMessage = z.object({ type: z.literal('request'), id: z.int().check(z.nonnegative()), method: z.string(), params: z.unknown() });
export type RequestMessage = z.output<typeof RequestMessage>;

/** host → webview: the answer to a request, a result or why there is none. */
export const ResponseMessage = z.object({
  type: z.literal('response'),
  id: z.int().check(z.nonnegative()),
  result: z.optional(z.unknown()),
  error: z.optional(z.string()),
});
export type ResponseMessage = z.output<typeof ResponseMessage>;

/** A protocol's requests, by name. */
export type IpcRequests = Readonly<Record<string, IpcRequest<unknown, unknown>>>;

/** What answers a protocol's requests: one function per request, typed by its definition. */
export type IpcHandlers<T extends IpcRequests> = { readonly [K in keyof T]: (params: IpcParams<T[K]>) => Promise<IpcResult<T[K]>> };

/**
 * Answers one request with the matching handler: params validated first (a bad request gets an error
 * answer, never reaches the handler), a handler's failure becomes an error answer.
 */
export async function answer<T extends IpcRequests>(requests: T, handlers: IpcHandlers<T>, message: RequestMessage): Promise<ResponseMessage> {
  const name = Object.keys(requests).find((key) => requests[key]!.method === message.method);
  if (name === undefined) return { type: 'response', id: message.id, error: `Unknown request ${message.method}.` };
  const parsed = requests[name]!.params.safeParse(message.params);
  if (!parsed.success)
    return { type: 'response', id: message.id, error: `Invalid params for ${message.method}: ${parsed.error.issues.map((i) => i.message).join('; ')}` };
  try {
    const handler = handlers[name] as (params: unknown) => Promise<unknown>;
    return { type: 'response', id: message.id, result: await handler(parsed.data) };
  } catch (error) {
    return { type: 'response', id: message.id, error: error instanceof Error ? error.message : String(error) };
  }
}
