/**
 * Protocol tracing for the log: one line per message, optionally with its JSON. Secrets that may
 * travel in messages (MCP server env values and HTTP headers) are replaced before anything is logged.
 */
import type { Message } from 'vscode-jsonrpc/node';
import type { Logger } from '../common/logger';
import type { MessageTap } from './transport/transport';

export type TraceLevel = 'off' | 'messages' | 'verbose';

const REDACTED = '«redacted»';

/** A copy of `value` with every `env[].value` and `headers[].value` under `mcpServers` replaced. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'mcpServers' && Array.isArray(child)) result[key] = child.map(redactServer);
    else result[key] = redactSecrets(child);
  }
  return result;
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

/** A tap that writes the traffic with one agent to the log at trace level. */
export function traceTap(agentName: string, level: () => TraceLevel, logger: Logger): MessageTap {
  return (direction, message) => {
    const current = level();
    if (current === 'off') return;
    const arrow = direction === 'send' ? `→ ${agentName}` : `← ${agentName}`;
    const line = `${arrow}: ${describeMessage(message)}`;
    logger.trace(current === 'verbose' ? `${line} ${JSON.stringify(redactSecrets(message))}` : line);
  };
}
