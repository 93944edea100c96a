/** An agent's advertised capabilities as one flat record, printed in the test output (docs/interop.md has the tables). */
import type { AgentCaps } from '../../src/acp/capabilities';
import type { InteropAgent } from './agents';

export function capabilityTable(caps: AgentCaps): Record<string, boolean> {
  return {
    loadSession: caps.loadSession,
    list: caps.sessions.list,
    resume: caps.sessions.resume,
    fork: caps.sessions.fork,
    close: caps.sessions.close,
    delete: caps.sessions.delete,
    additionalDirectories: caps.sessions.additionalDirectories,
    setTitle: caps.sessions.setTitle,
    logout: caps.auth.logout,
    image: caps.prompt.image,
    audio: caps.prompt.audio,
    embeddedContext: caps.prompt.embeddedContext,
    mcpHttp: caps.mcp.http,
    mcpSse: caps.mcp.sse,
  };
}

export function printCapabilities(agent: InteropAgent, caps: AgentCaps): void {
  const table = capabilityTable(caps);
  const on = Object.keys(table).filter((k) => table[k]);
  const off = Object.keys(table).filter((k) => !table[k]);
  const auth = caps.authMethods.map((m) => (m.type === 'unknown' ? m.tag : `${m.id}${m.type === 'terminal' ? ' (terminal)' : ''}`));
  console.log(
    `      ${agent.command.name} ${agent.version} (protocol ${caps.protocolVersion}, agentInfo ${caps.agentInfo ? `${caps.agentInfo.name} ${caps.agentInfo.version}` : 'none'})`,
  );
  console.log(`        advertised: ${on.join(', ') || 'nothing optional'}`);
  console.log(`        not advertised: ${off.join(', ') || 'none'}`);
  console.log(`        authMethods: ${auth.join(', ') || 'none'}`);
}
