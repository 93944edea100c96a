/**
 * The one rule for a session's title, which every view asks (the chat tab and its header, the status bar,
 * the Agents view, the Sessions view), so a session has one name everywhere, before and after a reload:
 *
 * 1. the user's own rename;
 * 2. the agent's title (`session_info_update`, `session/list`, its `/title` command), except the title a
 *    fork merely copied from its parent;
 * 3. for a fork, "<the parent's title> (fork)";
 * 4. the first line of the first prompt that is not a slash command (`/help` names no session);
 * 5. "Session in app from 10:45 PM" (its working folder; the day too when it was not today), only when
 *    nothing else is known: sessions started at once in different folders are still told apart.
 *
 * Every title is plain text on one line: whitespace (newlines, tabs, control and invisible format
 * characters) collapses to single spaces, and it is cut at {@link MAX_TITLE_CHARS} with an ellipsis.
 * Markup is kept as text; the views never interpret it.
 */
import * as l10n from '@vscode/l10n';

/** Longest title shown, in characters (UTF-16 units; a cut never splits a surrogate pair). */
export const MAX_TITLE_CHARS = 120;

/** The title a session has when nothing at all is known about it, not even when it started. */
export function untitled(): string {
  return l10n.t('Untitled session');
}

/** Where a fork came from, kept with the fork. */
export interface ForkOrigin {
  readonly sessionId: string;
  /** The parent's title as shown when it was forked. */
  readonly title: string;
  /** The parent's own agent title then: an agent that copies it into the fork has not named the fork. */
  readonly agentTitle?: string;
}

/** Everything a title can come from; any may be missing. */
export interface TitleSources {
  /** The user's rename. */
  readonly userTitle?: string;
  /** The agent's title. */
  readonly agentTitle?: string;
  readonly forkOf?: ForkOrigin;
  /** The text of the first prompt. */
  readonly firstPrompt?: string;
  /** When the session started (epoch ms), for the dated fallback. */
  readonly startedAt?: number;
  /** The name of its working folder, for the dated fallback. */
  readonly folder?: string;
}

export type TitleSource = 'user' | 'agent' | 'fork' | 'prompt' | 'date' | 'none';

export interface ResolvedTitle {
  readonly text: string;
  readonly source: TitleSource;
}

// Control characters and invisible format characters (zero-width, bidi controls, BOM) become spaces.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;

/** A title as one clean line of at most {@link MAX_TITLE_CHARS}; undefined when nothing readable is left. */
export function cleanTitle(raw: string | undefined | null): string | undefined {
  if (typeof raw !== 'string') return undefined;
  // Most titles are clean already: returned as they are, without the regular expressions (a million titles
  // are cleaned when an agent lists a million sessions).
  if (isClean(raw)) return raw;
  // Bounded work on a huge input: only the start can be shown.
  const text = raw
    .slice(0, MAX_TITLE_CHARS * 8)
    .replace(INVISIBLE, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  return cut(text, MAX_TITLE_CHARS);
}

/**
 * What {@link cleanTitle} would change: a character it replaces or collapses (control and invisible
 * characters, whitespace other than the plain space), a leading or trailing space, two spaces in a row.
 */
const NOT_CLEAN = /[\u0000-\u001f\u007f-\u00a0\u00ad\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]|^ | $| {2}/;

/** Whether a title is one line of visible characters with single spaces inside, short enough: nothing to clean. */
function isClean(text: string): boolean {
  return text.length > 0 && text.length <= MAX_TITLE_CHARS && !NOT_CLEAN.test(text);
}

/** A prompt that runs a slash command (`/help`, `/model fast`): its first line starts with `/name`. A path is words. */
export function isSlashCommand(prompt: string): boolean {
  return /^\s*\/[\w.:-]+(\s|$)/.test(prompt.slice(0, 256));
}

/** The title a prompt gives a session: its first non-empty line, cleaned and bounded; none for a slash command. */
export function promptTitle(prompt: string | undefined): string | undefined {
  if (prompt === undefined || isSlashCommand(prompt)) return undefined;
  const firstLine = prompt
    .slice(0, MAX_TITLE_CHARS * 64)
    .split(/\r\n|\r|\n/)
    .find((line) => cleanTitle(line) !== undefined);
  return cleanTitle(firstLine);
}

/** The name of a fork of a session called `parent`. */
export function forkTitle(parent: string): string {
  const room = MAX_TITLE_CHARS - l10n.t('{0} (fork)', '').length;
  return l10n.t('{0} (fork)', cut(cleanTitle(parent) ?? untitled(), room));
}

/** "Session in app from 10:45 PM" (today) or "Session in app from Nov 3, 10:45 PM"; without a folder, "Session from …". */
export function datedTitle(startedAt: number, now = Date.now(), folder?: string): string {
  const started = new Date(startedAt);
  const today = new Date(now).toDateString() === started.toDateString();
  const time = started.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const day = today
    ? undefined
    : started.toLocaleDateString(undefined, {
        month: 'short',
        day: 'numeric',
        ...(started.getFullYear() !== new Date(now).getFullYear() ? { year: 'numeric' } : {}),
      });
  const when = day ? `${day}, ${time}` : time;
  const where = cleanTitle(folder);
  return where ? l10n.t('Session in {0} from {1}', cut(where, 40), when) : l10n.t('Session from {0}', when);
}

/** The title of a session by the rule above, and which source gave it. */
export function resolveTitle(sources: TitleSources, now = Date.now()): ResolvedTitle {
  const user = cleanTitle(sources.userTitle);
  if (user) return { text: user, source: 'user' };
  const agent = cleanTitle(sources.agentTitle);
  const fork = sources.forkOf;
  const copied = fork !== undefined && agent !== undefined && (agent === cleanTitle(fork.agentTitle) || agent === cleanTitle(fork.title));
  if (agent && !copied) return { text: agent, source: 'agent' };
  if (fork) return { text: forkTitle(fork.title), source: 'fork' };
  const prompt = promptTitle(sources.firstPrompt);
  if (prompt) return { text: prompt, source: 'prompt' };
  if (sources.startedAt !== undefined && Number.isFinite(sources.startedAt) && sources.startedAt > 0)
    return { text: datedTitle(sources.startedAt, now, sources.folder), source: 'date' };
  return { text: untitled(), source: 'none' };
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  // Do not leave half of a surrogate pair.
  if (/[\ud800-\udbff]/.test(text.charAt(end - 1))) end--;
  return `${text.slice(0, end).trimEnd()}…`;
}
