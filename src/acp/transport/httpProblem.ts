/**
 * An HTTP error from a remote agent or server, in words: an `application/problem+json` body (RFC 9457: `title`,
 * `detail`, `status`, `type`; Sandbox Agent answers its errors this way) is read for its title and detail, any
 * other body for a bounded text excerpt. Nothing of the request (headers, token) is ever part of the message.
 */
import * as l10n from '@vscode/l10n';
import * as z from 'zod';

/** The most of an error body that is read (the rest is cancelled). */
export const MAX_ERROR_BODY_BYTES = 8 * 1024;
/** The most of an error body quoted to the user. */
const QUOTED_CHARS = 300;

const Problem = z.looseObject({
  type: z.string().max(2000).optional().catch(undefined),
  title: z.string().max(2000).optional().catch(undefined),
  status: z.number().int().optional().catch(undefined),
  detail: z.string().max(8000).optional().catch(undefined),
});

/** An HTTP answer that was not a success. */
export class RemoteHttpError extends Error {
  override readonly name = 'RemoteHttpError';
  constructor(
    message: string,
    readonly status: number,
    /** The problem's `title`, when the body was problem+json. */
    readonly title: string | undefined,
    /** The problem's `detail`, when the body was problem+json. */
    readonly detail: string | undefined,
    /** The problem's `type` (e.g. `urn:sandbox-agent:error:stream_error`), when the body was problem+json. */
    readonly type?: string,
    /** What happened without the next step (a refused token: not "Set the token with …", for the prompt that asks for it). */
    readonly statement: string = message,
  ) {
    super(message);
  }

  /** The server refused the credentials. */
  get auth(): boolean {
    return this.status === 401 || this.status === 403;
  }

  /**
   * The server answered with a redirect, which the remote links never follow (fetch would send the token, the
   * extra headers and the body to wherever it points, plain `http:` included): the connection cannot go on.
   */
  get redirect(): boolean {
    return isRedirect(this.status);
  }
}

/** A 3xx status: a redirect (or 304, which no request of ours asks for). */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

/**
 * Reads an error answer (at most {@link MAX_ERROR_BODY_BYTES} of its body) into a {@link RemoteHttpError} whose
 * message names who answered (`peer`), what was asked (`what`, e.g. "the agent list") and the server's words.
 */
export async function readHttpError(response: Response, peer: string, what: string): Promise<RemoteHttpError> {
  if (isRedirect(response.status)) {
    void response.body?.cancel().catch(() => undefined);
    return redirectError(response.status, response.headers.get('location') ?? undefined, response.url, peer, what);
  }
  const text = await readBounded(response, MAX_ERROR_BODY_BYTES).catch(() => '');
  const type = response.headers.get('content-type') ?? '';
  return httpError(response.status, type, text, peer, what);
}

/**
 * The same as {@link readHttpError} for a status, content type and body already read (a WebSocket upgrade refusal);
 * `location` and `requestUrl` say where a redirect pointed.
 */
export function httpError(
  status: number,
  contentType: string,
  body: string,
  peer: string,
  what: string,
  location?: string,
  requestUrl?: string,
): RemoteHttpError {
  if (isRedirect(status)) return redirectError(status, location, requestUrl, peer, what);
  let title: string | undefined;
  let detail: string | undefined;
  let type: string | undefined;
  if (/json/i.test(contentType) || /^\s*\{/.test(body)) {
    try {
      const problem = Problem.safeParse(JSON.parse(body));
      if (problem.success) {
        title = oneLine(problem.data.title);
        detail = oneLine(problem.data.detail);
        type = oneLine(problem.data.type);
      }
    } catch {
      // Not JSON after all: quoted as text below.
    }
  }
  const words = [title, detail && detail !== title ? detail : undefined].filter((w): w is string => !!w).join(': ') || oneLine(body) || '';
  if (status === 401 || status === 403) {
    const statement = words
      ? l10n.t('{0} refused the credentials for {1} (HTTP {2}: {3}).', peer, what, status, words)
      : l10n.t('{0} refused the credentials for {1} (HTTP {2}).', peer, what, status);
    return new RemoteHttpError(l10n.t('{0} Set the token with "ACP: Set Remote Agent Token…".', statement), status, title, detail, type, statement);
  }
  const message = words
    ? l10n.t('{0} answered HTTP {1} for {2}: {3}', peer, status, what, words)
    : l10n.t('{0} answered HTTP {1} for {2}.', peer, status, what);
  return new RemoteHttpError(message, status, title, detail, type);
}

/**
 * A redirect in words: where it pointed (without its query, which may carry a secret), that it was not followed,
 * and what to do if the new address is the agent's.
 */
function redirectError(status: number, location: string | undefined, requestUrl: string | undefined, peer: string, what: string): RemoteHttpError {
  let target: string | undefined;
  if (location !== undefined) {
    try {
      const url = new URL(location, requestUrl || undefined);
      target = `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
    } catch {
      target = oneLine(location.slice(0, 200));
    }
  }
  const message = target
    ? l10n.t(
        "{0} answered {1} with a redirect (HTTP {2}) to {3}. ACP Workspace does not follow redirects for remote agents, so the token, the headers and the message went nowhere else. If that address is the agent's, put it in the agent's entry.",
        peer,
        what,
        status,
        target,
      )
    : l10n.t(
        '{0} answered {1} with a redirect (HTTP {2}). ACP Workspace does not follow redirects for remote agents, so the token, the headers and the message went nowhere else.',
        peer,
        what,
        status,
      );
  return new RemoteHttpError(message, status, undefined, undefined);
}

/** Reads at most `limit` bytes of a body as UTF-8 and cancels the rest. */
export async function readBounded(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = value.subarray(0, limit - size);
      chunks.push(take);
      size += take.length;
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function oneLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const flat = text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat === '') return undefined;
  return flat.length > QUOTED_CHARS ? `${flat.slice(0, QUOTED_CHARS)}…` : flat;
}
