/**
 * One session as the Sessions view knows it (the agent's listing merged with the client's own record), the
 * agents and the workspace it is seen against, and which sessions a scope takes.
 */
import { sameRootPaths } from '../roots/rootSet';
import type { Scope } from '../shared/historyProtocol';
import type { AgentCatalog, CatalogEntry, SourcePlan } from './catalog';
import { recordKey, type LocalRecord } from './localIndex';
import type { ReopenCaps } from './reopenPolicy';
import type { Searchable } from './search';
import { resolveTitle } from './sessionTitle';

export interface AgentEntry {
  readonly name: string;
  readonly running: boolean;
  /** From its current or last connection; undefined if it never ran. */
  readonly caps: ReopenCaps | undefined;
  /** Present while it runs and advertises `session/list`. */
  readonly catalog: AgentCatalog | undefined;
}

export interface WorkspaceShape {
  /** Real paths of the workspace's local folders, in order. */
  readonly folders: readonly string[];
  /** The root list (`[cwd, ...additionalDirectories]`) a new session with this agent would get now. */
  rootSetFor(agent: AgentEntry): readonly string[];
  /** Whether a folder exists (callers cache). */
  exists(folder: string): boolean;
}

/** One session as the view knows it: the agent's listing merged with the client's own record. */
export interface SessionView extends Searchable {
  readonly key: string;
  readonly agentName: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  readonly rootsKnown: boolean;
  /** The title shown everywhere, by the rule of history/sessionTitle.ts. */
  readonly title: string;
  /** Whether the title names the session (not only when it started). */
  readonly titled: boolean;
  readonly agentTitle: string | undefined;
  readonly updatedAt: number | undefined;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly pinned: boolean;
  readonly hidden: boolean;
  readonly local: boolean;
}

/** The `session/list` sources a scope needs, in the order they are read. */
export function sourcePlan(scope: Scope, workspace: WorkspaceShape, agent: AgentEntry): SourcePlan {
  if (scope === 'all') return [undefined];
  if (scope === 'workspace') {
    const cwd = workspace.rootSetFor(agent)[0];
    return cwd === undefined ? [] : [cwd];
  }
  // Sessions whose cwd is a workspace folder come first (exact cwd filter); sessions that only have a
  // workspace folder among their other roots can only be found in the unfiltered list.
  return [...workspace.folders, ...(agent.caps?.sessions.additionalDirectories ? [undefined] : [])];
}

/** Whether a scope takes a session with these roots. */
export function inScope(view: Pick<SessionView, 'cwd' | 'additionalDirectories'>, scope: Scope, workspace: WorkspaceShape, agent: AgentEntry): boolean {
  switch (scope) {
    case 'all':
      return true;
    case 'workspace':
      return sameRootPaths([view.cwd, ...view.additionalDirectories], workspace.rootSetFor(agent));
    case 'folders':
      return workspace.folders.includes(view.cwd) || view.additionalDirectories.some((d) => workspace.folders.includes(d));
  }
}

export function viewOf(agentName: string, entry: CatalogEntry | undefined, record: LocalRecord | undefined): SessionView | undefined {
  const sessionId = entry?.sessionId ?? record?.sessionId;
  const cwd = entry?.cwd ?? record?.cwd;
  if (sessionId === undefined || cwd === undefined) return undefined;
  // The agent's list is authoritative; the client's record fills in what the agent did not say.
  const sameCwd = record !== undefined && record.cwd === cwd;
  const additional = entry?.additionalDirectories ?? (sameCwd || !entry ? record?.additionalDirectories : undefined);
  const agentTitle = entry?.title ?? record?.title;
  const title = resolveTitle({
    userTitle: record?.localTitle,
    agentTitle,
    forkOf: record?.forkOf,
    firstPrompt: record?.promptTitle,
    startedAt: record?.createdAt || entry?.updatedAt,
    folder: folderName(cwd),
  });
  return {
    key: recordKey(agentName, sessionId),
    agentName,
    sessionId,
    cwd,
    additionalDirectories: additional ?? [],
    rootsKnown: additional !== undefined,
    title: title.text,
    titled: title.source !== 'date' && title.source !== 'none',
    agentTitle,
    updatedAt: entry?.updatedAt ?? record?.updatedAt,
    meta: entry?.meta,
    pinned: record?.pinned === true,
    hidden: record?.hidden === true,
    local: entry === undefined,
  };
}

/** The last part of a path, whichever separator it uses. */
function folderName(folder: string): string {
  return (
    folder
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .pop() ?? folder
  );
}
