/**
 * What the remote links (WebSocket, Streamable HTTP, Sandbox Agent) share with the stdio framing once a whole message has
 * arrived: parse it, check it is a JSON-RPC 2.0 message, or say in words why not (a {@link FramingError} naming
 * the agent), and for a message over the size limit, the same report and the same error answer to a request
 * that would otherwise wait forever. The framing differs per transport; what a message is does not.
 */
import * as l10n from '@vscode/l10n';
import type { Message } from 'vscode-jsonrpc/node';
import { ErrorCodes } from '../errors';
import { readMessageHead } from './messageHead';
import { FramingError, formatSize, type OversizeLine } from './ndjson';

/** A message's text turned into a message, or the error saying why it is not one. */
export type Intake = { readonly message: Message } | { readonly error: FramingError };

/** Parses one whole message (a WebSocket text frame, an SSE event's data). */
export function parseMessage(text: string, peer: string): Intake {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: new FramingError(`${peer} sent a message that is not JSON (${(error as Error).message}): ${preview(text)}`, peer, 'json') };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (value as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
    return { error: new FramingError(`${peer} sent JSON that is not a JSON-RPC 2.0 message: ${preview(text)}`, peer, 'shape') };
  }
  return { message: value as Message };
}

/**
 * A message over the limit that was skipped: the error to report and, when its start shows it was an answer,
 * the error answer that fails the request it answered (with the limit setting named).
 */
export function oversizeMessage(
  peer: string,
  bytes: number,
  limitBytes: number,
  headText: string,
): { readonly error: FramingError; readonly answer?: Message } {
  const line: OversizeLine = { bytes, limitBytes, head: readMessageHead(headText) };
  const what = line.head.method === undefined ? '' : `, ${line.head.method}${line.head.sessionId === undefined ? '' : ` for session ${line.head.sessionId}`}`;
  const error = new FramingError(
    `${peer} sent a message longer than ${formatSize(limitBytes)} (${formatSize(bytes)}${what}); it was discarded.`,
    peer,
    'oversize',
    line,
  );
  const { id, method, answer } = line.head;
  if (!answer || method !== undefined || id === undefined) return { error };
  return {
    error,
    answer: {
      jsonrpc: '2.0',
      id,
      error: {
        code: ErrorCodes.InternalError,
        message: l10n.t(
          "{0}'s answer was {1}, over the limit of {2} (setting acpWorkspace.maxMessageSizeMiB); it was discarded.",
          peer,
          formatSize(bytes),
          formatSize(limitBytes),
        ),
      },
    } as Message,
  };
}

/**
 * The error answer that fails one of our own requests we did not send because it was over the limit (the other
 * side would refuse it, and vscode-jsonrpc would wait forever for its answer).
 */
export function unsentRequestAnswer(peer: string, message: Message, bytes: number, limitBytes: number): Message | undefined {
  const id = requestIdOf(message);
  if (id === undefined) return undefined;
  return failedRequestAnswer(id, unsentMessage(peer, messageKind(message), bytes, limitBytes));
}

/** The error answer that fails our request `id` at once (it was not sent, or its POST failed), with `words`. */
export function failedRequestAnswer(id: string | number, words: string, data?: unknown): Message {
  return { jsonrpc: '2.0', id, error: { code: ErrorCodes.InternalError, message: words, ...(data === undefined ? {} : { data }) } } as Message;
}

/** The id of a request (a method and a string or number id); undefined for a notification or an answer. */
export function requestIdOf(message: Message): string | number | undefined {
  const { id, method } = message as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}

/** What a message is, in words: its method, or "an answer". */
export function messageKind(message: Message): string {
  const method = (message as { method?: unknown }).method;
  return typeof method === 'string' ? method : l10n.t('an answer');
}

/** Why a message was not sent: over the limit. */
export function unsentMessage(peer: string, what: string, bytes: number, limitBytes: number): string {
  return l10n.t(
    'The {0} message to {1} was {2}, over the limit of {3} (setting acpWorkspace.maxMessageSizeMiB); it was not sent.',
    what,
    peer,
    formatSize(bytes),
    formatSize(limitBytes),
  );
}

function preview(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
