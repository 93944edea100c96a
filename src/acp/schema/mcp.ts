/** MCP servers the client asks the agent to connect to. https://agentclientprotocol.com/protocol/session-setup#mcp-servers */
import * as z from 'zod';
import { Meta } from './primitives';

export const EnvVariable = z.looseObject({ name: z.string(), value: z.string(), _meta: Meta });
export const HttpHeader = z.looseObject({ name: z.string(), value: z.string(), _meta: Meta });

/** stdio transport: every agent supports it. Sent without a `type` field. */
export const McpServerStdio = z.looseObject({
  name: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  env: z.array(EnvVariable),
  _meta: Meta,
});

/** http transport: only when the agent advertises `mcpCapabilities.http`. */
export const McpServerHttp = z.looseObject({
  type: z.literal('http'),
  name: z.string(),
  url: z.string(),
  headers: z.array(HttpHeader),
  _meta: Meta,
});

/** sse transport: only when the agent advertises `mcpCapabilities.sse`. */
export const McpServerSse = McpServerHttp.extend({ type: z.literal('sse') });

export const McpServer = z.union([McpServerHttp, McpServerSse, McpServerStdio]);

export type EnvVariable = z.output<typeof EnvVariable>;
export type McpServerStdio = z.output<typeof McpServerStdio>;
export type McpServerHttp = z.output<typeof McpServerHttp>;
export type McpServerSse = z.output<typeof McpServerSse>;
export type McpServer = z.output<typeof McpServer>;
