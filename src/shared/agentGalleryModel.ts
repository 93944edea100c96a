/**
 * How the Add Agent gallery reads, as pure functions of its state (the webview renders them; unit tests
 * check them): which cards a search and a filter keep, the catalog's status line, what a card's action area
 * offers, and what a screen reader hears when an action ends.
 */
import * as l10n from '@vscode/l10n';
import { relativeTime } from './relativeTime';
import type { DistributionKind, GalleryAgentView, GalleryCatalogView } from './agentGalleryProtocol';

export type GalleryFilter = 'all' | 'installed' | 'updates';

/** Lower-cased words of a query (a card must contain every one). */
function words(query: string): string[] {
  return query.toLocaleLowerCase().split(/\s+/).filter(Boolean);
}

/**
 * The agents a search and a filter keep, in the catalog's order. The search matches id, name, description
 * and authors, case-insensitively; every word of it must be found in one of them.
 */
export function filterAgents(agents: readonly GalleryAgentView[], query: string, filter: GalleryFilter): GalleryAgentView[] {
  const wanted = words(query);
  return agents.filter((agent) => {
    if (filter === 'installed' && !agent.installed) return false;
    if (filter === 'updates' && !(agent.installed && agent.update)) return false;
    if (wanted.length === 0) return true;
    const haystack = [agent.id, agent.name, agent.description, ...agent.authors].join('\n').toLocaleLowerCase();
    return wanted.every((word) => haystack.includes(word));
  });
}

/** How many agents each filter shows (before the search). */
export function filterCounts(agents: readonly GalleryAgentView[]): Record<GalleryFilter, number> {
  let installed = 0;
  let updates = 0;
  for (const agent of agents) {
    if (!agent.installed) continue;
    installed++;
    if (agent.update) updates++;
  }
  return { all: agents.length, installed, updates };
}

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "3 minutes ago", "yesterday", or the date and time for anything more than a week away. */
export function checkedAgo(ms: number, now: number): string {
  return relativeTime(ms, now, { older: (at) => DATE.format(at) });
}

/** The line above the cards: where the list comes from and how fresh it is, or why it is not. */
export interface CatalogStatus {
  /** `current`: the registry answered; `offline`: it did not, an older list shows; `unset`: no registry URL. */
  readonly kind: 'current' | 'offline' | 'unset';
  readonly text: string;
}

function registryName(catalog: GalleryCatalogView): string {
  if (catalog.official) return l10n.t('the ACP Registry');
  try {
    return new URL(catalog.url).host || catalog.url;
  } catch {
    return catalog.url;
  }
}

export function catalogStatus(catalog: GalleryCatalogView, now: number): CatalogStatus {
  if (catalog.url.trim() === '') {
    return { kind: 'unset', text: l10n.t('The registry setting (acpWorkspace.registry.url) is empty: no registry is asked.') };
  }
  const from = registryName(catalog);
  if (catalog.error !== undefined) {
    return catalog.source === 'snapshot' || catalog.fetchedAt === undefined
      ? { kind: 'offline', text: l10n.t('Offline: the list shipped with ACP Workspace ({0})', catalog.error) }
      : { kind: 'offline', text: l10n.t('Offline: the list from {0} ({1})', DATE.format(catalog.fetchedAt), catalog.error) };
  }
  if (catalog.fetchedAt !== undefined) return { kind: 'current', text: l10n.t('From {0}, checked {1}', from, checkedAgo(catalog.fetchedAt, now)) };
  return { kind: 'current', text: l10n.t('The list shipped with ACP Workspace (not checked with {0} yet)', from) };
}

/** What a card's action area offers. */
export type CardAction =
  | { readonly kind: 'busy'; readonly action: 'install' | 'update' | 'uninstall'; readonly message: string; readonly fraction?: number }
  | { readonly kind: 'install'; readonly kinds: readonly DistributionKind[] }
  | { readonly kind: 'update'; readonly from: string; readonly to: string }
  | { readonly kind: 'installed'; readonly version: string }
  /** No distribution works on this machine: the reasons are on the chips. */
  | { readonly kind: 'unavailable' };

export function cardAction(agent: GalleryAgentView): CardAction {
  if (agent.busy) return { kind: 'busy', ...agent.busy };
  if (agent.installed && agent.update) return { kind: 'update', from: agent.installed.version, to: agent.update };
  if (agent.installed) return { kind: 'installed', version: agent.installed.version };
  const kinds = agent.availability.filter((a) => a.available).map((a) => a.kind);
  return kinds.length > 0 ? { kind: 'install', kinds } : { kind: 'unavailable' };
}

/**
 * What a screen reader hears when the host's state moves from `previous` to `next`: each action that ended,
 * in words (installed, updated, removed, or failed with why).
 */
export function actionAnnouncements(previous: readonly GalleryAgentView[], next: readonly GalleryAgentView[]): string[] {
  const before = new Map(previous.map((agent) => [agent.id, agent]));
  const out: string[] = [];
  for (const agent of next) {
    const busy = before.get(agent.id)?.busy;
    if (!busy || agent.busy) continue;
    if (agent.error !== undefined) out.push(l10n.t('{0}: {1}', agent.name, agent.error));
    else if (busy.action === 'uninstall') out.push(agent.installed ? l10n.t('{0} was not removed.', agent.name) : l10n.t('{0} was removed.', agent.name));
    else if (agent.installed)
      out.push(
        busy.action === 'update'
          ? l10n.t('{0} was updated to {1}.', agent.name, agent.installed.version)
          : l10n.t('{0} {1} was installed.', agent.name, agent.installed.version),
      );
    else out.push(l10n.t('{0} was not installed.', agent.name));
  }
  return out;
}
