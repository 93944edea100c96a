/** ACP's stdio transport: the agent's stdout and stdin, one JSON-RPC message per line. */
import type { Readable, Writable } from 'node:stream';
import { NdjsonMessageReader, NdjsonMessageWriter } from './ndjson';
import type { AcpTransport } from './transport';

export interface StdioTransportOptions {
  /** The agent's display name. */
  readonly peer: string;
  /** Longest accepted line in bytes (default 32 MiB). */
  readonly maxLineBytes?: number;
}

/** The transport over an agent's stdio streams (or any pair of byte streams, e.g. in tests). */
export function stdioTransport(input: Readable, output: Writable, options: StdioTransportOptions): AcpTransport {
  return {
    peer: options.peer,
    open: ({ tap, intercept }) => ({
      reader: new NdjsonMessageReader(input, { peer: options.peer, maxLineBytes: options.maxLineBytes, tap, intercept }),
      writer: new NdjsonMessageWriter(output, { peer: options.peer, tap }),
    }),
  };
}
