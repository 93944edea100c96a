/**
 * Protocol tracing for the log, like LSP clients' `trace.server`: `messages` writes one line per message with
 * its method and params, `verbose` the whole message. Both show at the log's default level. Secrets that may
 * travel in messages (MCP server env values and HTTP headers) are replaced before anything is logged, and the
 * text is bounded whatever the agent sends (see jsonText).
 */
import type { Message } from 'vscode-jsonrpc/node';
import { jsonText } from '../common/jsonText';
import type { Logger } from '../common/logger';
import type { MessageTap } from './transport/transport';

export type TraceLevel = 'off' | 'messages' | 'verbose';

const REDACTED = '«redacted»';

/**
 * A copy of a message's params with every `mcpServers[].env[].value` and `mcpServers[].headers[].value`
 * replaced (where the lifecycle requests carry MCP servers); everything else is shared, not copied.
 */
export function redactMcpSecrets(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const servers = (value as { mcpServers?: unknown }).mcpServers;
  return Array.isArray(servers) ? { ...value, mcpServers: servers.map(redactServer) } : value;
}

function redactServer(server: unknown): unknown {
  if (typeof server !== 'object' || server === null) return server;
  const copy: Record<string, unknown> = { ...(server as Record<string, unknown>) };
  for (const field of ['env', 'headers']) {
    const list = copy[field];
    if (Array.isArray(list)) {
      copy[field] = list.map((entry: unknown) =>
        typeof entry === 'object' && entry !== null ? { ...(entry as Record<string, unknown>), value: REDACTED } : entry,
      );
    }
  }
  return copy;
}

/** Short description of a message: `request session/new #3`, `response #3`, `notification session/update`. */
export function describeMessage(message: Message): string {
  const m = message as { id?: unknown; method?: string; error?: { code: number; message: string } };
  if (typeof m.method === 'string') return m.id !== undefined ? `request ${m.method} #${String(m.id)}` : `notification ${m.method}`;
  if (m.error) return `error response #${String(m.id)}: ${m.error.code} ${m.error.message}`;
  return `response #${String(m.id)}`;
}

/** Longest params shown per message at `messages`, and longest message at `verbose`. */
const MESSAGES_CHARS = 2000;
const VERBOSE_CHARS = 1024 * 1024;

/** A tap that writes the traffic with one agent to the log. */
export function traceTap(agentName: string, level: () => TraceLevel, logger: Logger): MessageTap {
  return (direction, message) => {
    const current = level();
    if (current === 'off') return;
    const arrow = direction === 'send' ? `→ ${agentName}` : `← ${agentName}`;
    const line = `${arrow}: ${describeMessage(message)}`;
    const m = message as { params?: unknown };
    if (current === 'verbose') {
      logger.info(
        `${line} ${jsonText({ ...message, ...(m.params !== undefined ? { params: redactMcpSecrets(m.params) } : {}) }, { maxChars: VERBOSE_CHARS })}`,
      );
    } else {
      logger.info(m.params !== undefined ? `${line} ${jsonText(redactMcpSecrets(m.params), { maxChars: MESSAGES_CHARS })}` : line);
    }
  };
}
