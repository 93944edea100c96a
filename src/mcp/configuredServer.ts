/**
 * A configured MCP server: where it came from, its transport, the two formats it is written in (this
 * extension's setting and VS Code's `.vscode/mcp.json`, as zod schemas), and the final checks that turn a
 * draft with its variables expanded into the port's `McpServerConfig` (`acp/port/mcp.ts`). Reading the
 * setting and the files is mcpConfig.ts; choosing what an agent gets is mcpSelection.ts.
 */
import * as l10n from '@vscode/l10n';
import * as path from 'node:path';
import * as z from 'zod';
import type { McpServerConfig, McpStdioServerConfig } from '../acp/port/mcp';

/** The setting's full name, as used in messages. */
export const MCP_SERVERS_SETTING = 'acpWorkspace.mcpServers';

/** Where a configured server came from. */
export type McpSource =
  | { readonly kind: 'setting'; /** position in the setting's array */ readonly index: number }
  | { readonly kind: 'file'; /** the mcp.json file */ readonly path: string };

/** One server as configured, already in the shape ACP sends. */
export interface ConfiguredMcpServer {
  readonly source: McpSource;
  readonly server: McpServerConfig;
}

export type McpTransport = 'stdio' | 'http' | 'sse';

/** The transport of an ACP server (stdio servers have no `type`). */
export function transportOf(server: McpServerConfig): McpTransport {
  return server.type ?? 'stdio';
}

/** A stdio server (ACP sends it without `type`). */
export function isStdioServer(server: McpServerConfig): server is McpStdioServerConfig {
  return server.type === undefined;
}

/** `acpWorkspace.mcpServers[2]` or the file's path. */
export function describeMcpSource(source: McpSource): string {
  return source.kind === 'setting' ? `${MCP_SERVERS_SETTING}[${source.index}]` : source.path;
}

/** Where VS Code keeps a workspace folder's MCP servers. */
export function mcpJsonPath(folderPath: string): string {
  return path.join(folderPath, '.vscode', 'mcp.json');
}

// ---------------------------------------------------------------------------------------------------------
// Schemas

/** A required string: "is missing" / "must be a string" instead of zod's generic wording. */
const requiredString = () => z.string({ error: (issue) => (issue.input === undefined ? l10n.t('is missing') : l10n.t('must be a string')) });
const nonEmpty = () =>
  requiredString()
    .trim()
    .min(1, { error: () => l10n.t('must not be empty') });
const stringList = () => z.array(z.string({ error: () => l10n.t('must be a string') }), { error: () => l10n.t('must be a list of strings') });
const stringMap = (what: 'variables' | 'headers') =>
  z.record(z.string(), z.string({ error: () => l10n.t('must be a string') }), {
    error: () =>
      what === 'variables' ? l10n.t('must be an object mapping variable names to values') : l10n.t('must be an object mapping header names to values'),
  });

/** `acpWorkspace.mcpServers` entry, stdio: `{ name, command, args?, env? }` (`type: "stdio"` allowed). */
export const McpSettingStdio = z.strictObject({
  name: nonEmpty(),
  type: z.literal('stdio').optional(),
  command: nonEmpty(),
  args: stringList().default([]),
  env: stringMap('variables').default({}),
});

/** `acpWorkspace.mcpServers` entry, remote: `{ name, type: "http" | "sse", url, headers? }`. */
export const McpSettingRemote = z.strictObject({
  name: nonEmpty(),
  type: z.enum(['http', 'sse']),
  url: nonEmpty(),
  headers: stringMap('headers').default({}),
});

/** `.vscode/mcp.json`, stdio server (VS Code's format; other VS Code fields such as `dev` are ignored). */
export const McpJsonStdio = z.looseObject({
  type: z.literal('stdio').optional(),
  command: nonEmpty(),
  args: stringList().default([]),
  env: z
    .record(z.string(), z.union([z.string(), z.number(), z.null()], { error: () => l10n.t('must be a string, a number or null') }), {
      error: () => l10n.t('must be an object mapping variable names to values'),
    })
    .default({}),
  envFile: z.string({ error: () => l10n.t('must be a string') }).optional(),
  cwd: z.string({ error: () => l10n.t('must be a string') }).optional(),
  sandboxEnabled: z.boolean({ error: () => l10n.t('must be true or false') }).optional(),
});

/** `.vscode/mcp.json`, remote server: `{ type: "http" | "sse", url, headers? }` (no `type` with a `url`: http). */
export const McpJsonRemote = z.looseObject({
  type: z.enum(['http', 'sse']).optional(),
  url: nonEmpty(),
  headers: stringMap('headers').default({}),
});

/** `.vscode/mcp.json` itself: `{ servers: { <name>: server }, inputs: [...] }`. */
export const McpJsonFile = z.looseObject({
  servers: z.record(z.string(), z.unknown(), { error: () => l10n.t('must be an object mapping server names to servers') }).optional(),
  inputs: z.array(z.unknown(), { error: () => l10n.t('must be a list') }).optional(),
});

// ---------------------------------------------------------------------------------------------------------
// Building ACP servers (shared by both sources)

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A stdio server read from either source, before the final checks. */
export interface StdioDraft {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: ReadonlyMap<string, string>;
}

/** An http or sse server read from either source, before the final checks. */
export interface RemoteDraft {
  readonly name: string;
  readonly type: 'http' | 'sse';
  readonly url: string;
  readonly headers: ReadonlyMap<string, string>;
}

/** Final checks on expanded values; an error message (never quoting a value) or the ACP server. */
export function buildServer(draft: StdioDraft | RemoteDraft): McpServerConfig | string {
  if ('command' in draft) {
    if (draft.command.trim() === '') return l10n.t('command: is empty');
    for (const [name, value] of draft.env) {
      if (name === '' || name.includes('=') || name.includes('\0')) return l10n.t('env: "{0}" is not a valid environment variable name', printable(name));
      if (value.includes('\0')) return l10n.t('env.{0}: contains a NUL character', printable(name));
    }
    if ([draft.command, ...draft.args].some((text) => text.includes('\0'))) return l10n.t('command or args: contain a NUL character');
    return {
      name: draft.name,
      command: draft.command,
      args: [...draft.args],
      env: [...draft.env].map(([name, value]) => ({ name, value })),
    };
  }
  if (!URL.canParse(draft.url)) return l10n.t('url: is not a valid URL');
  const protocol = new URL(draft.url).protocol;
  if (protocol !== 'http:' && protocol !== 'https:') return l10n.t('url: must be an http:// or https:// address, not {0}//', protocol);
  for (const [name, value] of draft.headers) {
    if (!HEADER_NAME.test(name)) return l10n.t('headers: "{0}" is not a valid HTTP header name', printable(name));
    if (/[\r\n\0]/.test(value)) return l10n.t('headers.{0}: contains a line break or NUL character', printable(name));
  }
  return {
    type: draft.type,
    name: draft.name,
    url: draft.url,
    headers: [...draft.headers].map(([name, value]) => ({ name, value })),
  };
}

/** A name or key for a message: control characters escaped, length capped. */
export function printable(text: string): string {
  const escaped = JSON.stringify(text).slice(1, -1);
  return escaped.length > 80 ? `${escaped.slice(0, 77)}...` : escaped;
}

type EntryType = McpTransport | { readonly error: string };

/** stdio, http or sse: from `type`, else `url` means http (as VS Code reads mcp.json), else stdio. */
export function entryType(entry: Record<string, unknown>): EntryType {
  const type = entry['type'];
  if (type === undefined) return 'url' in entry ? 'http' : 'stdio';
  if (type === 'stdio' || type === 'http' || type === 'sse') return type;
  return { error: l10n.t('type: must be "stdio", "http" or "sse"') };
}
