/**
 * Which configured MCP servers one agent gets, and how to describe them in the log without secrets.
 *
 * Rules, in order:
 * 1. http / sse servers are only passed when the agent advertises `mcpCapabilities.http` / `.sse`.
 * 2. Among the servers the agent can take, a name is used once: a server from the setting wins over
 *    one from a file; among files (and among setting entries) the first wins.
 * Every server not passed is listed with the reason.
 */
import * as l10n from '@vscode/l10n';
import type { McpServerConfig } from '../acp/port/mcp';
import { type ConfiguredMcpServer, describeMcpSource, isStdioServer, type McpSource, transportOf } from './configuredServer';

/** The agent's `mcpCapabilities` (`AgentCaps.mcp`). */
export interface McpTransportCaps {
  readonly http: boolean;
  readonly sse: boolean;
}

export interface NotPassedMcpServer {
  readonly name: string;
  readonly source: McpSource;
  readonly reason: string;
}

export interface McpSelection {
  /** What goes into `mcpServers` of session/new, load, resume and fork. */
  readonly passed: McpServerConfig[];
  readonly notPassed: NotPassedMcpServer[];
}

/** Why an HTTP or SSE server is not passed (functions: t() runs after activate() set the bundle). */
export const httpNotSupported = (): string => l10n.t('the agent does not support HTTP MCP servers');
export const sseNotSupported = (): string => l10n.t('the agent does not support SSE MCP servers');

/** Applies the rules above; `passed` and `notPassed` keep the configured order. */
export function selectMcpServers(configured: readonly ConfiguredMcpServer[], caps: McpTransportCaps): McpSelection {
  const unsupported = (entry: ConfiguredMcpServer): string | undefined => {
    const transport = transportOf(entry.server);
    if (transport === 'http' && !caps.http) return httpNotSupported();
    if (transport === 'sse' && !caps.sse) return sseNotSupported();
    return undefined;
  };
  const winners = new Map<string, ConfiguredMcpServer>();
  for (const entry of configured) {
    if (unsupported(entry) !== undefined) continue;
    const current = winners.get(entry.server.name);
    if (current === undefined || (current.source.kind === 'file' && entry.source.kind === 'setting')) winners.set(entry.server.name, entry);
  }
  const passed: McpServerConfig[] = [];
  const notPassed: NotPassedMcpServer[] = [];
  for (const entry of configured) {
    const { name } = entry.server;
    const reason = unsupported(entry);
    const winner = winners.get(name);
    if (reason !== undefined) notPassed.push({ name, source: entry.source, reason });
    else if (winner === entry) passed.push(entry.server);
    else
      notPassed.push({
        name,
        source: entry.source,
        reason: l10n.t('another server named "{0}" ({1}) is used instead', name, describeMcpSource(winner!.source)),
      });
  }
  return { passed, notPassed };
}

// ---------------------------------------------------------------------------------------------------------
// Log descriptions

const REDACTED = '«redacted»';

/** Flag names whose value is likely a secret (`--api-key X`, `--token=X`). */
const SECRET_FLAG = /token|secret|passw|pwd|api[-_]?key|auth|credential|bearer|cookie|private[-_]?key/i;

/**
 * One line describing a server, for the log: transport, command and args or URL, and only the NAMES of
 * env variables and headers. Never contains an env or header value: besides leaving them out, every
 * occurrence of one (4 characters or longer) elsewhere, e.g. in an arg, is replaced by «redacted». Args
 * after secret-looking flags, URL credentials and query values, and token-like URL path segments are
 * redacted too.
 */
export function describeMcpServer(server: McpServerConfig, source?: McpSource): string {
  const from = source ? ` from ${describeMcpSource(source)}` : '';
  let line: string;
  let secrets: string[];
  if (isStdioServer(server)) {
    const env = server.env.map((v) => v.name);
    line = `"${server.name}" (stdio${from}): ${[server.command, ...redactArgs(server.args)].map(quoteArg).join(' ')}${env.length > 0 ? `; env: ${env.join(', ')}` : ''}`;
    secrets = server.env.map((v) => v.value);
  } else {
    const headers = server.headers.map((h) => h.name);
    line = `"${server.name}" (${server.type}${from}): ${redactUrl(server.url)}${headers.length > 0 ? `; headers: ${headers.join(', ')}` : ''}`;
    secrets = server.headers.map((h) => h.value);
  }
  // Also the forms a value takes once quoted or URL-encoded; longest first, so no part of one survives.
  const forms = secrets.filter((s) => s.length >= 4).flatMap((s) => [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)]);
  for (const form of [...new Set(forms)].sort((a, b) => b.length - a.length)) line = line.split(form).join(REDACTED);
  return line;
}

/** Log lines for a selection: one per passed server and one per server not passed, with the reason. */
export function describeMcpSelection(selection: McpSelection, configured: readonly ConfiguredMcpServer[]): string[] {
  const lines: string[] = [];
  for (const server of selection.passed) {
    const entry = configured.find((c) => c.server === server);
    lines.push(`MCP server passed: ${describeMcpServer(server, entry?.source)}`);
  }
  for (const skipped of selection.notPassed) {
    lines.push(`MCP server not passed: "${skipped.name}" from ${describeMcpSource(skipped.source)}: ${skipped.reason}`);
  }
  return lines;
}

function redactArgs(args: readonly string[]): string[] {
  const result: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const flag = /^(-{1,2}[^=\s]+)=(.*)$/s.exec(arg);
    if (flag && SECRET_FLAG.test(flag[1]!)) {
      result.push(`${flag[1]!}=${REDACTED}`);
    } else if (/^-{1,2}[^=\s]+$/.test(arg) && SECRET_FLAG.test(arg) && i + 1 < args.length && !args[i + 1]!.startsWith('-')) {
      result.push(arg, REDACTED);
      i++;
    } else {
      result.push(/^https?:\/\//i.test(arg) ? redactUrl(arg) : arg);
    }
  }
  return result;
}

/** The URL with user info, query values and fragment redacted, and token-like path segments too. */
function redactUrl(text: string): string {
  if (!URL.canParse(text)) return REDACTED;
  const url = new URL(text);
  const userInfo = url.username !== '' || url.password !== '' ? `${REDACTED}@` : '';
  const segments = url.pathname.split('/').map((segment) => (looksLikeToken(decodeSafe(segment)) ? REDACTED : segment));
  const query = [...url.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${REDACTED}`).join('&');
  return `${url.protocol}//${userInfo}${url.host}${segments.join('/')}${query !== '' ? `?${query}` : ''}${url.hash !== '' ? `#${REDACTED}` : ''}`;
}

function looksLikeToken(segment: string): boolean {
  return segment.length >= 20 && /[0-9]/.test(segment) && /[A-Za-z]/.test(segment) && /^[A-Za-z0-9_.~+=-]+$/.test(segment);
}

function decodeSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function quoteArg(arg: string): string {
  return arg === '' || /[\s"']/.test(arg) ? JSON.stringify(arg) : arg;
}
