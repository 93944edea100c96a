/**
 * What "Add Remote Agent…" and "Set Remote Agent Token…" write, decided in plain Node: the settings entry (checked
 * against {@link RemoteAgentSetting} and the TLS rule before it is written), its default name and folder mappings,
 * the SecretStorage key of an endpoint, the stored credentials read back, and header lines typed by the user.
 */
import * as l10n from '@vscode/l10n';
import * as z from 'zod';
import { formatIssues } from '../../common/zodIssues';
import { checkRemoteEndpoint, displayUrl, type RemoteCredentials } from '../../acp/transport/remote';
import { isLoopback } from '../../common/loopback';
import { RemoteAgentSetting, remoteKindOf } from '../../agents/agentConfig';

/** Prefix of every SecretStorage key this extension keeps remote credentials under. */
export const REMOTE_SECRET_PREFIX = 'acpWorkspace.remote:';

/** The most a stored token or the headers may take (a SecretStorage value is read whole). */
const MAX_SECRET_CHARS = 64 * 1024;
const MAX_HEADERS = 50;

/**
 * The SecretStorage key of an endpoint: its origin and path, without query or fragment, so every agent of one
 * Sandbox Agent server (they share its base URL) uses the server's credentials.
 */
export function remoteSecretKey(url: string): string {
  try {
    const parsed = new URL(url.trim());
    return `${REMOTE_SECRET_PREFIX}${parsed.origin}${parsed.pathname}`;
  } catch {
    return `${REMOTE_SECRET_PREFIX}${url.trim().replace(/[?#].*$/s, '')}`;
  }
}

/** An HTTP header name (RFC 9110 `token`). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the connection sets itself: a value from the user would break it. */
const RESERVED_HEADERS = /^(host|content-length|content-type|accept|connection|keep-alive|transfer-encoding|te|upgrade|sec-websocket-.*)$/i;

const StoredCredentials = z.strictObject({
  token: z
    .string()
    .min(1)
    .max(MAX_SECRET_CHARS)
    .refine((t) => !/[\r\n]/.test(t))
    .optional(),
  headers: z
    .record(
      z.string().regex(HEADER_NAME).max(200),
      z
        .string()
        .max(MAX_SECRET_CHARS)
        .refine((v) => !/[\r\n]/.test(v)),
    )
    .refine((h) => Object.keys(h).length <= MAX_HEADERS)
    .optional(),
});

/**
 * Reads a stored SecretStorage value back. Anything unreadable is treated as no credentials, with a problem that
 * never quotes the value (it may hold a token).
 */
export function parseStoredCredentials(value: string | undefined): { readonly credentials: RemoteCredentials; readonly problem?: string } {
  if (value === undefined || value === '') return { credentials: {} };
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return { credentials: {}, problem: l10n.t('the stored credentials are not JSON') };
  }
  const parsed = StoredCredentials.safeParse(json);
  if (!parsed.success)
    return {
      credentials: {},
      problem: l10n.t('the stored credentials have an unexpected shape ({0})', parsed.error.issues.map((i) => i.path.join('.') || '(root)').join(', ')),
    };
  return { credentials: withoutEmpty(parsed.data) };
}

/** The value stored for credentials; undefined when there is nothing to keep (the key is deleted then). */
export function storedCredentialsValue(credentials: RemoteCredentials): string | undefined {
  const kept = withoutEmpty(credentials);
  return kept.token === undefined && kept.headers === undefined ? undefined : JSON.stringify(kept);
}

function withoutEmpty(credentials: RemoteCredentials): RemoteCredentials {
  const token = credentials.token?.trim();
  const headers = credentials.headers && Object.keys(credentials.headers).length > 0 ? { ...credentials.headers } : undefined;
  return { ...(token ? { token } : {}), ...(headers ? { headers } : {}) };
}

/** Whether a token typed by the user can be sent (`Authorization: Bearer <token>`): one line, bounded. */
export function checkToken(text: string): string | undefined {
  if (/[\r\n]/.test(text)) return l10n.t('A token is one line.');
  if (text.length > MAX_SECRET_CHARS) return l10n.t('The token is too long.');
  return undefined;
}

/**
 * Header lines as the user types them: `Name: value` pairs separated by `;` (or new lines). Names are HTTP
 * tokens, values have no CR or LF, the headers the connection sets itself are refused; `Authorization` is
 * allowed (it then replaces the bearer token). Empty text is no headers.
 */
export function parseHeaderLines(text: string): { readonly headers: Readonly<Record<string, string>> } | { readonly error: string } {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  const parts = text
    .split(/[;\n]/)
    .map((p) => p.replace(/\r$/, '').trim())
    .filter((p) => p !== '');
  if (parts.length > MAX_HEADERS) return { error: l10n.t('At most {0} headers.', MAX_HEADERS) };
  for (const part of parts) {
    const colon = part.indexOf(':');
    if (colon <= 0) return { error: l10n.t('"{0}" is not "Name: value".', clipHeader(part)) };
    const name = part.slice(0, colon).trim();
    const value = part.slice(colon + 1).trim();
    if (!HEADER_NAME.test(name)) return { error: l10n.t('"{0}" is not a valid header name.', clipHeader(name)) };
    if (RESERVED_HEADERS.test(name)) return { error: l10n.t('{0} is set by the connection itself.', name) };
    if (/[\r\n\0]/.test(value)) return { error: l10n.t('The value of {0} must be one line.', name) };
    if (value.length > MAX_SECRET_CHARS) return { error: l10n.t('The value of {0} is too long.', name) };
    if (seen.has(name.toLowerCase())) return { error: l10n.t('{0} is given twice.', name) };
    seen.add(name.toLowerCase());
    headers[name] = value;
  }
  return { headers };
}

/** A header name quoted in an error (the value never is). */
function clipHeader(text: string): string {
  const name = text.split(':')[0] ?? '';
  return name.length > 40 ? `${name.slice(0, 40)}…` : name;
}

/** Plain `ws:`/`http:` to a host that is not this machine: the user must allow it (the traffic is not encrypted). */
export function isInsecureRemote(url: string): boolean {
  try {
    const parsed = new URL(url.trim());
    return (parsed.protocol === 'ws:' || parsed.protocol === 'http:') && !isLoopback(parsed.hostname);
  } catch {
    return false;
  }
}

/** Whether the URL is on this machine (folders are then prefilled with their own paths). */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopback(new URL(url.trim()).hostname);
  } catch {
    return false;
  }
}

/** Whether the URL can be a Sandbox Agent server (they speak HTTP). */
export function mayBeSandboxServer(url: string): boolean {
  return /^https?:/i.test(url.trim());
}

/**
 * What is wrong with a URL typed for a remote agent, or undefined. Plain `ws:`/`http:` off this machine passes
 * here: the user is asked about it next.
 */
export function checkRemoteUrl(text: string): string | undefined {
  const url = text.trim();
  if (url === '') return l10n.t('Enter the URL of the agent or of the Sandbox Agent server.');
  if (!/^(wss?|https?):/i.test(url)) return l10n.t('Use a ws://, wss://, http:// or https:// URL.');
  const checked = checkRemoteEndpoint({ url, kind: /^wss?:/i.test(url) ? 'websocket' : 'http', allowInsecure: true });
  if (checked instanceof Error) return checked.message;
  if (checked.search !== '' || checked.hash !== '')
    return l10n.t('Leave out the query and fragment: a token goes to secret storage with "ACP: Set Remote Agent Token…".');
  return undefined;
}

/** "opencode on box:2468", or "box:2468" for an agent that is the whole endpoint. */
export function defaultRemoteName(url: string, sandboxAgent?: string): string {
  let host: string;
  try {
    host = new URL(url.trim()).host;
  } catch {
    host = displayUrl(url);
  }
  return sandboxAgent === undefined ? host : l10n.t('{0} on {1}', sandboxAgent, host);
}

/** `base`, else `base (2)`, `base (3)`… : the first not among `taken`. */
export function uniqueName(base: string, taken: Iterable<string>): string {
  const names = new Set(taken);
  if (!names.has(base)) return base;
  for (let n = 2; ; n++) if (!names.has(`${base} (${n})`)) return `${base} (${n})`;
}

/** What is wrong with a name for the new agent, or undefined. */
export function checkAgentName(text: string, taken: Iterable<string>): string | undefined {
  const name = text.trim();
  if (name === '') return l10n.t('Enter a name.');
  if (name.length > 100) return l10n.t('Use at most 100 characters.');
  if (new Set(taken).has(name)) return l10n.t('An agent named "{0}" exists already.', name);
  return undefined;
}

/** The path offered for a folder: its own path when the agent is on this machine, else nothing (not shared). */
export function defaultMappingPath(folderPath: string, loopback: boolean): string {
  return loopback && folderPath.startsWith('/') ? folderPath : '';
}

/** What is wrong with a path typed for a folder, or undefined; empty means "not shared with this agent". */
export function checkMappingPath(text: string): string | undefined {
  const path = text.trim();
  if (path === '') return undefined;
  if (!path.startsWith('/')) return l10n.t('Enter an absolute path as the agent sees it (starting with /), or leave it empty not to share this folder.');
  if (path.includes('\0')) return l10n.t('The path contains a NUL character.');
  return undefined;
}

/** What the user chose for a new remote agent. */
export interface RemoteAgentChoice {
  readonly name: string;
  /** The endpoint, or the Sandbox Agent server's base URL. */
  readonly url: string;
  /** The agent's id on a Sandbox Agent server. */
  readonly sandboxAgent?: string;
  readonly allowInsecure: boolean;
  /** Each workspace folder (local path) and what the user typed for it (empty: not shared). */
  readonly folders: readonly { readonly local: string; readonly remote: string }[];
}

/** The entry written to `acpWorkspace.agents`, as the user would write it. */
export interface RemoteAgentEntry {
  readonly name: string;
  readonly remote: {
    readonly url: string;
    readonly sandboxAgent?: string;
    readonly pathMappings: readonly { readonly local: string; readonly remote: string }[];
    readonly allowInsecure?: true;
  };
}

/**
 * The settings entry for a choice, or an Error saying what is wrong: the folders with a path become its
 * mappings (none: the agent sees this machine's paths); the transport is left to the URL's scheme and
 * `sandboxAgent`; `allowInsecure` is written only when set. It passes the same zod schema and TLS rule the
 * agent list and the runtime apply, and carries no secret (a URL with a query or user info is refused).
 */
export function buildRemoteAgentEntry(choice: RemoteAgentChoice): RemoteAgentEntry | Error {
  const url = choice.url.trim();
  const urlProblem = checkRemoteUrl(url);
  if (urlProblem) return new Error(urlProblem);
  const pathMappings = choice.folders.filter((f) => f.remote.trim() !== '').map((f) => ({ local: f.local, remote: f.remote.trim() }));
  const entry: RemoteAgentEntry = {
    name: choice.name.trim(),
    remote: {
      url,
      ...(choice.sandboxAgent !== undefined ? { sandboxAgent: choice.sandboxAgent } : {}),
      pathMappings,
      ...(choice.allowInsecure ? { allowInsecure: true as const } : {}),
    },
  };
  const parsed = RemoteAgentSetting.strict().safeParse(entry);
  if (!parsed.success) return new Error(formatIssues(parsed.error.issues));
  const remote = parsed.data.remote;
  const endpoint = checkRemoteEndpoint({
    url: remote.url,
    kind: remoteKindOf(remote),
    allowInsecure: remote.allowInsecure,
    ...(remote.sandboxAgent !== undefined ? { sandboxAgent: remote.sandboxAgent } : {}),
  });
  return endpoint instanceof Error ? endpoint : entry;
}

/**
 * The user's `acpWorkspace.agents` with the entry added at the end, every other entry kept as it was; an Error
 * when the setting is not a list (writing would lose it) or already has an entry with that name.
 */
export function withRemoteAgentEntry(current: unknown, entry: RemoteAgentEntry): unknown[] | Error {
  if (current !== undefined && current !== null && !Array.isArray(current))
    return new Error(l10n.t('acpWorkspace.agents in your user settings is not a list: fix it first, so that nothing of it is lost.'));
  const list: unknown[] = Array.isArray(current) ? [...(current as unknown[])] : [];
  if (list.some((e) => typeof e === 'object' && e !== null && (e as { name?: unknown }).name === entry.name)) {
    return new Error(l10n.t('An agent named "{0}" exists already.', entry.name));
  }
  return [...list, entry];
}

/** The names of the entries in a value of `acpWorkspace.agents` (whatever their shape). */
export function entryNames(current: unknown): string[] {
  if (!Array.isArray(current)) return [];
  return current.flatMap((e: unknown) =>
    typeof e === 'object' && e !== null && typeof (e as { name?: unknown }).name === 'string' ? [(e as { name: string }).name.trim()] : [],
  );
}
