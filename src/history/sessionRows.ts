/**
 * A session as one row of the Sessions view: its title and highlights, its folders (and which are missing),
 * its state and the actions it offers, its agent's metadata, and a transcript snippet when its text matched.
 * Built only for the rows the webview shows.
 */
import { namedRoot } from '../roots/rootSet';
import type { Row, SessionRow } from '../shared/historyProtocol';
import { actionsFor } from './rowActions';
import type { Range, Snippet } from './search';
import type { AgentEntry, SessionView, WorkspaceShape } from './sessionView';

/** How much of an agent's `_meta` the details pane shows. */
const META_LIMIT = 4000;

export interface RowContext {
  /** The matched characters of the title (a title search's hit). */
  readonly highlights: readonly Range[];
  /** The session's agent, if it is still configured. */
  readonly agent: AgentEntry | undefined;
  readonly workspace: WorkspaceShape;
  /** Whether a chat shows the session now. */
  readonly open: boolean;
  /** False in Restricted Mode. */
  readonly trusted: boolean;
}

export function sessionRow(view: SessionView, context: RowContext): SessionRow {
  const roots = [view.cwd, ...view.additionalDirectories].map((p, i) => ({
    name: namedRoot(p).name,
    path: p,
    primary: i === 0,
    missing: !context.workspace.exists(p),
  }));
  return {
    kind: 'session',
    key: view.key,
    agentName: view.agentName,
    sessionId: view.sessionId,
    title: view.title,
    titled: view.titled,
    highlights: context.highlights.map((r) => [r[0], r[1]] as [number, number]),
    ...(view.updatedAt !== undefined ? { updatedAt: view.updatedAt } : {}),
    roots,
    rootsKnown: view.rootsKnown,
    pinned: view.pinned,
    hidden: view.hidden,
    open: context.open,
    local: view.local,
    ...(view.meta !== undefined ? { meta: metaText(view.meta) } : {}),
    actions: actionsFor(view, context.agent, context.open, context.trusted),
  };
}

/** The rows with the snippets of those that have one (by row key). */
export function withSnippets(rows: readonly Row[], snippets: ReadonlyMap<string, Snippet>): Row[] {
  return rows.map((row) => {
    const snippet = row.kind === 'session' ? snippets.get(row.key) : undefined;
    return snippet ? { ...row, snippet: snippetRow(snippet) } : row;
  });
}

function snippetRow(snippet: Snippet): SessionRow['snippet'] {
  return { text: snippet.text, highlights: snippet.highlights.map((r) => [r[0], r[1]] as [number, number]) };
}

function metaText(meta: Readonly<Record<string, unknown>>): string {
  let text: string;
  try {
    text = JSON.stringify(meta, null, 2);
  } catch {
    text = '(unreadable)';
  }
  return text.length > META_LIMIT ? `${text.slice(0, META_LIMIT)}\n…` : text;
}
