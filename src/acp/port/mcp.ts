/**
 * The MCP servers the client asks an agent to connect to for a session, as the application builds them
 * (`mcp/`), whatever the protocol version. The v1 adapter sends them as v1's `McpServer` unchanged: the shapes
 * agree field for field, so TypeScript checks that boundary (`acp/v1/mcpServers.ts`); v2 maps them its own way.
 * Arrays are plain arrays and the shapes are type aliases (which, unlike interfaces, fit v1's open objects) for the
 * same reason.
 */

/** A `NAME=value` pair: an environment variable of a stdio server, a header of a remote one. */
export type McpNameValue = {
  readonly name: string;
  readonly value: string;
};

/** A server the agent starts as a process and talks to over stdio: every agent supports it. */
export type McpStdioServerConfig = {
  /** Stdio servers carry no `type` (v1 sends them without one). */
  readonly type?: undefined;
  readonly name: string;
  readonly command: string;
  readonly args: string[];
  readonly env: McpNameValue[];
};

/** A server the agent reaches over HTTP or SSE: only when the agent advertises that transport. */
export type McpRemoteServerConfig = {
  readonly type: 'http' | 'sse';
  readonly name: string;
  readonly url: string;
  readonly headers: McpNameValue[];
};

export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;
