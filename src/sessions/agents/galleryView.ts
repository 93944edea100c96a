/**
 * The gallery panel's host-side logic that needs no VS Code (unit-tested in plain Node): the gallery's state
 * as the webview gets it (registry texts cut to the protocol's bounds, links kept only when they are http(s)),
 * which link a webview may open, and the pacing of state messages while installs report progress.
 */
import type { GalleryAgent, GalleryState } from './agentGallery';
import { GALLERY_LIMITS, type GalleryAgentView, type GalleryView } from '../../shared/agentGalleryProtocol';

/** The official index (agents/registry/types.ts has it too; the webview says "the ACP Registry" for it). */
const OFFICIAL_HOST = 'cdn.agentclientprotocol.com';

function cut(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

/** `value` when it is an absolute http(s) URL within the bound, else undefined (never a `javascript:` or `file:` link). */
export function webLink(value: string | undefined): string | undefined {
  if (value === undefined || value.length > GALLERY_LIMITS.url) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The links of a card the webview may ask to open. */
export function agentLinks(agent: GalleryAgent): string[] {
  return [agent.agent.repository, agent.agent.website, agent.agent.licenseUrl].map(webLink).filter((url): url is string => url !== undefined);
}

function agentView(entry: GalleryAgent): GalleryAgentView {
  const { agent } = entry;
  const words = (text: string) => cut(text, GALLERY_LIMITS.words);
  return {
    id: agent.id,
    name: cut(agent.name, GALLERY_LIMITS.name),
    version: cut(agent.version, GALLERY_LIMITS.version),
    description: cut(agent.description, GALLERY_LIMITS.description),
    authors: agent.authors.slice(0, GALLERY_LIMITS.authors).map((a) => cut(a, GALLERY_LIMITS.author)),
    license: agent.license === undefined ? undefined : cut(agent.license, GALLERY_LIMITS.license),
    licenseUrl: webLink(agent.licenseUrl),
    repository: webLink(agent.repository),
    website: webLink(agent.website),
    hasIcon: agent.icon !== undefined,
    availability: entry.availability
      .slice(0, 3)
      .map((a) => ({ kind: a.kind, available: a.available, reason: a.reason === undefined ? undefined : words(a.reason) })),
    installed: entry.installed ? { version: cut(entry.installed.version, GALLERY_LIMITS.version), distribution: entry.installed.distribution } : undefined,
    update: entry.update === undefined ? undefined : cut(entry.update, GALLERY_LIMITS.version),
    busy: entry.busy
      ? {
          action: entry.busy.action,
          message: words(entry.busy.progress.message),
          fraction:
            entry.busy.progress.fraction === undefined || !Number.isFinite(entry.busy.progress.fraction)
              ? undefined
              : Math.min(1, Math.max(0, entry.busy.progress.fraction)),
        }
      : undefined,
    error: entry.error === undefined ? undefined : words(entry.error),
    builtIn: entry.builtIn === undefined ? undefined : cut(entry.builtIn, GALLERY_LIMITS.name),
    sessionAgent: sessionAgentName(entry),
  };
}

/** The name New Session picks the installed agent by: the built-in it backs, else the name it was installed under. */
export function sessionAgentName(entry: GalleryAgent): string | undefined {
  if (!entry.installed) return undefined;
  return entry.builtIn ?? entry.installed.name;
}

function isOfficial(url: string): boolean {
  try {
    return new URL(url).host === OFFICIAL_HOST;
  } catch {
    return false;
  }
}

/** The gallery as the webview gets it: bounded, links checked, nothing but plain data. */
export function galleryView(state: GalleryState): GalleryView {
  const { catalog } = state;
  return {
    catalog: {
      url: cut(catalog.url, GALLERY_LIMITS.url),
      official: isOfficial(catalog.url),
      source: catalog.source,
      fetchedAt: catalog.fetchedAt,
      error: catalog.error === undefined ? undefined : cut(catalog.error, GALLERY_LIMITS.words),
      skipped: catalog.problems.length,
      problems: catalog.problems.slice(0, GALLERY_LIMITS.problems).map((p) => cut(p, GALLERY_LIMITS.words)),
    },
    agents: state.agents.slice(0, GALLERY_LIMITS.agents).map(agentView),
    trusted: state.trusted,
    refreshing: state.refreshing,
  };
}

export interface PacerClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemClock: PacerClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Runs `send` at most once per `intervalMs`: the first change goes out at once, changes within the interval
 * after it are gathered into one send at its end (so the last state always arrives). Progress of several
 * installs at once thus costs the webview ten renders a second, not one per progress event.
 */
export class StatePacer {
  private lastSent = -Infinity;
  private timer: unknown;

  constructor(
    private readonly send: () => void,
    private readonly intervalMs = 100,
    private readonly clock: PacerClock = systemClock,
  ) {}

  /** Something changed. */
  schedule(): void {
    if (this.timer !== undefined) return;
    const wait = this.lastSent + this.intervalMs - this.clock.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Sends now (e.g. the page just loaded), dropping a pending send. */
  flush(): void {
    this.cancel();
    this.lastSent = this.clock.now();
    this.send();
  }

  cancel(): void {
    if (this.timer === undefined) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
