/** Which protocol version a connection speaks: chosen in acp/, from the agent's `initialize` answer. */
import { PROTOCOL_VERSION } from './schema';

/** The protocol versions this client speaks, the one it offers first. */
const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [PROTOCOL_VERSION];

/**
 * The version a connection speaks, from the agent's `initialize` answer: the one it answered when this client
 * speaks it, else none (the connection closes with a ProtocolVersionError). Only v1 exists yet: ACP v2 plugs in
 * here, with its adapter beside `acp/v1/`.
 */
export function chooseProtocolVersion(answered: number): number | undefined {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(answered) ? answered : undefined;
}
