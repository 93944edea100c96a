/** Which protocol version a connection speaks: chosen in acp/, from the agent's `initialize` answer. */
import { PROTOCOL_VERSION } from './schema';

/** The protocol versions this client speaks: v1 (`AcpConnection`) and v2 (`v2/connection.ts`). */
const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [PROTOCOL_VERSION, 2];

/**
 * The version a connection speaks, from the agent's `initialize` answer: the one it answered when this client
 * speaks it, else none (the connection closes with a ProtocolVersionError).
 */
export function chooseProtocolVersion(answered: number): number | undefined {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(answered) ? answered : undefined;
}
