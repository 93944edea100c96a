/**
 * The v1 adapter behind a connection the product hands out as the port's `AgentConnection`: for the tests that
 * script the wire itself (raw v1 handlers on the connection an agent runtime just built).
 */
import { AcpConnection } from '../../src/acp/connection';
import type { AgentConnection } from '../../src/acp/port/agentConnection';

export function v1(connection: AgentConnection): AcpConnection {
  if (!(connection instanceof AcpConnection)) throw new Error('Not the ACP v1 adapter: a test that scripts v1 handlers needs AcpConnection.');
  return connection;
}
