/**
 * The Add Agent tab's copy of the host's state, and what only the tab knows: the search and the filter (kept
 * while the tab is hidden, through the webview's state), the icons received, the agents whose action was just
 * sent (their buttons wait for the next state), and what the live region says.
 */
import type { DistributionKind, GalleryToHost, GalleryView } from '../../shared/agentGalleryProtocol';
import { actionAnnouncements, type GalleryFilter } from '../../shared/agentGalleryModel';
import { host } from './host';

type Listener = () => void;

const FILTERS: readonly GalleryFilter[] = ['all', 'installed', 'updates'];

function savedView(raw: unknown): { query: string; filter: GalleryFilter } {
  const saved = raw && typeof raw === 'object' ? (raw as { query?: unknown; filter?: unknown }) : {};
  return {
    query: typeof saved.query === 'string' ? saved.query.slice(0, 500) : '',
    filter: FILTERS.find((f) => f === saved.filter) ?? 'all',
  };
}

export class GalleryStore {
  state: GalleryView | undefined;
  query: string;
  filter: GalleryFilter;
  /** Icons by agent id, as `data:` URLs. */
  readonly icons = new Map<string, string>();
  /** The last thing the live region said (a new one replaces it). */
  announcement = '';
  /** Bumped when anything shown changes. */
  revision = 0;
  /** Agents whose action was sent and whose next state has not arrived. */
  private readonly sent = new Set<string>();
  private readonly listeners = new Set<Listener>();
  private readonly iconsAsked = new Set<string>();
  private iconBatch: string[] = [];
  private observer: IntersectionObserver | undefined;
  private readonly observed = new Map<Element, string>();

  constructor() {
    ({ query: this.query, filter: this.filter } = savedView(host.getState()));
    host.onMessage((message) => {
      switch (message.type) {
        case 'state':
          return this.receive(message.state);
        case 'icon':
          this.icons.set(message.id, message.dataUri);
          return this.changed();
      }
    });
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  receive(incoming: GalleryView): void {
    // An agent that did not change keeps its object, so its card is not rendered again (AgentCard).
    const before = new Map(this.state?.agents.map((agent) => [agent.id, agent]));
    const agents = incoming.agents.map((agent) => {
      const old = before.get(agent.id);
      return old && JSON.stringify(old) === JSON.stringify(agent) ? old : agent;
    });
    const state = { ...incoming, agents };
    const said = this.state ? actionAnnouncements(this.state.agents, state.agents) : [];
    if (said.length > 0) this.announcement = said.join('\n');
    this.state = state;
    this.sent.clear();
    this.changed();
  }

  /** An action on this agent was sent and its outcome has not arrived. */
  waiting(id: string): boolean {
    return this.sent.has(id);
  }

  /** Sends a verb about one agent; its buttons wait for the state that follows. */
  act(message: Extract<GalleryToHost, { type: 'install' | 'uninstall' | 'cancel' }>): void {
    if (this.sent.has(message.id)) return;
    this.sent.add(message.id);
    host.post(message);
    this.changed();
  }

  install(id: string, kind?: DistributionKind): void {
    this.act({ type: 'install', id, kind });
  }

  setQuery(query: string): void {
    this.query = query;
    this.save();
  }

  setFilter(filter: GalleryFilter): void {
    this.filter = filter;
    this.save();
  }

  /** Asks for an agent's icon once its card comes into view. */
  watchIcon(element: Element, id: string): () => void {
    if (this.iconsAsked.has(id)) return () => undefined;
    this.observer ??= new IntersectionObserver((entries) => this.seen(entries), { rootMargin: '200px 0px' });
    this.observed.set(element, id);
    this.observer.observe(element);
    return () => {
      this.observed.delete(element);
      this.observer?.unobserve(element);
    };
  }

  private seen(entries: IntersectionObserverEntry[]): void {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const id = this.observed.get(entry.target);
      this.observer?.unobserve(entry.target);
      this.observed.delete(entry.target);
      if (id === undefined || this.iconsAsked.has(id)) continue;
      this.iconsAsked.add(id);
      this.iconBatch.push(id);
    }
    if (this.iconBatch.length === 0) return;
    // Every card that came into view in this callback, in one message (the protocol takes 200 at a time).
    while (this.iconBatch.length > 0) host.post({ type: 'icons', ids: this.iconBatch.splice(0, 200) });
  }

  private save(): void {
    host.setState({ query: this.query, filter: this.filter });
    this.changed();
  }

  private changed(): void {
    this.revision++;
    for (const listener of [...this.listeners]) listener();
  }
}
