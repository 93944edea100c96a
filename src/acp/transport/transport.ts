/**
 * How JSON-RPC messages travel between this client and one agent. The connection (see connection.ts)
 * never knows which transport it has: stdio with newline-delimited JSON today ({@link stdioTransport}), an
 * HTTP+SSE or WebSocket connection to a remote agent later. Each transport is a vscode-jsonrpc reader and
 * writer pair with the same limits and the same error reporting (like vscode-languageclient's
 * `TransportKind`, each a `MessageReader`/`MessageWriter` pair).
 */
import type { Message, MessageReader, MessageWriter } from 'vscode-jsonrpc/node';

/** Observes every message crossing the connection (protocol trace, conformance checks in tests). */
export type MessageTap = (direction: 'send' | 'receive', message: Message) => void;

/**
 * A notification the reader itself appends after the last message when the agent's side ends. It is
 * queued behind everything the agent sent, so its handler runs once every earlier message was dispatched.
 */
export const END_OF_STREAM_METHOD = '$/acp-workspace/end-of-stream';

/** What the connection hands the transport when it opens it. */
export interface TransportHooks {
  /** Sees every message in both directions. */
  readonly tap?: MessageTap;
  /**
   * Sees each received message before vscode-jsonrpc does, in arrival order; true means the connection
   * handled it itself (its fast path for streamed notifications) and the reader must not pass it on.
   */
  readonly intercept: (message: Message) => boolean;
}

/**
 * The contract every transport keeps:
 * - the reader delivers messages in the order the agent sent them, each to `intercept` first;
 * - a message it cannot read (not JSON, not JSON-RPC, over the size limit) is reported through the
 *   reader's `onError` with a readable message naming the agent, and reading goes on; memory stays bounded;
 * - when the agent's side ends (stdout closed, socket closed, stream finished), the reader delivers an
 *   {@link END_OF_STREAM_METHOD} notification after the last message, then closes;
 * - the writer rejects a write once the agent's side is closed, and reports it through `onError`.
 */
export interface AcpTransport {
  /** Who is at the other end, e.g. "Claude Code" (shown in errors). */
  readonly peer: string;
  /** Starts reading and writing. Called once, by the connection. */
  open(hooks: TransportHooks): { readonly reader: MessageReader; readonly writer: MessageWriter };
}
