/**
 * The port's MCP server configurations as v1 sends them in session setup (`mcpServers` of session/new, load,
 * resume and fork): the shapes agree field for field, so this is the identity, and the place where TypeScript
 * checks that they still do.
 */
import type { McpServerConfig } from '../port/mcp';
import type { McpServer } from '../schema';

export function v1McpServers(servers: readonly McpServerConfig[]): McpServer[] {
  return servers.map((server): McpServer => server);
}
