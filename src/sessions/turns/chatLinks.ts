/**
 * What a link or a file location in a chat opens. Everything in a transcript came from the agent, so a
 * click must not open any file it names: a file inside the session's folders opens at once; a file
 * outside them (the real path decides, so a symlink leading out counts as outside) opens only after the
 * user confirmed a question naming it. Web links go to the browser (VS Code asks before opening them);
 * any other scheme is ignored.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OutsideFileQuestion } from '../ports';
import type { AgentSession } from '../routing/agentSession';

/** Where a link points. */
export type LinkTarget =
  { readonly kind: 'web'; readonly uri: string } | { readonly kind: 'file'; readonly path: string; readonly line?: number } | { readonly kind: 'none' };

/** What opening needs from the editor (the VS Code layer implements it; tests replace it). */
export interface LinkOpener {
  openFile(file: string, line?: number): Promise<void>;
  openExternal(uri: string): Promise<void>;
  /** True when the user chose to open the file. */
  confirmOutside(question: OutsideFileQuestion): Promise<boolean>;
}

/**
 * Where `href` (a link in the agent's text) points: `http(s):` and `mailto:` are web links; a `file:` URL
 * (with an optional `#L12`) or a path is a file, a relative one under `cwd` (markdown encodes paths, so they
 * are decoded); anything else points nowhere.
 */
export function linkTarget(href: string, cwd: string): LinkTarget {
  const trimmed = href.trim();
  if (/^(https?|mailto):/i.test(trimmed)) return { kind: 'web', uri: trimmed };
  if (/^file:/i.test(trimmed)) {
    try {
      const url = new URL(trimmed);
      const line = /^#L(\d+)/.exec(url.hash)?.[1];
      url.hash = '';
      return { kind: 'file', path: fileURLToPath(url), ...(line ? { line: Number(line) } : {}) };
    } catch {
      return { kind: 'none' };
    }
  }
  // Another scheme (command:, vscode:, javascript:…), but not a Windows drive letter.
  if (trimmed === '' || trimmed.startsWith('#') || /^[a-z][a-z0-9+.-]+:/i.test(trimmed)) return { kind: 'none' };
  const [file = '', fragment] = trimmed.split('#', 2);
  let decoded: string;
  try {
    decoded = decodeURI(file);
  } catch {
    decoded = file;
  }
  const line = fragment === undefined ? undefined : /^L(\d+)/.exec(fragment)?.[1];
  return { kind: 'file', path: path.resolve(cwd, decoded), ...(line ? { line: Number(line) } : {}) };
}

/**
 * Opens what a link or location of `session`'s chat points to: a file inside the session's folders at once,
 * one outside them only when the user confirms. Resolves with what happened.
 */
export async function openChatTarget(session: AgentSession, target: LinkTarget, opener: LinkOpener): Promise<'opened' | 'declined' | 'ignored'> {
  switch (target.kind) {
    case 'none':
      return 'ignored';
    case 'web':
      await opener.openExternal(target.uri);
      return 'opened';
    case 'file': {
      const decision = await session.guard.check(target.path);
      if (!decision.allowed && !(await opener.confirmOutside({ agentName: session.agentName, path: target.path, reason: decision.message }))) return 'declined';
      await opener.openFile(target.path, target.line);
      return 'opened';
    }
  }
}
