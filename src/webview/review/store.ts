/**
 * The Review Changes panel's copy of the host's state, and what only the panel knows: which files are
 * expanded, which show all their lines, and whether an action is on its way. After an action is posted the
 * actions are disabled until the host's next state arrives (the host answers every action with one, also
 * one it ignored because the version was stale).
 */
import type { ReviewState, ReviewToHost } from '../../shared/reviewProtocol';
import { host } from './host';

/** The actions that change files; each names the version of the state it was chosen on. */
export type ReviewAction = Extract<ReviewToHost, { version: number }>;

/** Files expanded when the panel opens (beyond them a file is expanded on a click: keeps a large review fast). */
export const EXPANDED_FILES = 20;

type Listener = () => void;

export class ReviewStore {
  state: ReviewState | undefined;
  /** An action was posted and its state has not arrived yet. */
  busy = false;
  /** Bumped when anything shown changes. */
  revision = 0;
  /** Files the user expanded or collapsed (others follow {@link EXPANDED_FILES}). */
  private readonly expanded = new Map<string, boolean>();
  private readonly showingAll = new Set<string>();
  private readonly listeners = new Set<Listener>();

  constructor() {
    host.onMessage((message) => {
      // Which session this tab shows, kept for a window reload (VS Code gives it back to the host).
      if (message.tab) host.setState(message.tab);
      this.receive(message.state);
    });
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  receive(state: ReviewState): void {
    this.state = state;
    this.busy = false;
    // A file that left the review and comes back later starts afresh.
    const keys = new Set(state.files.map((f) => f.key));
    for (const key of [...this.expanded.keys()]) if (!keys.has(key)) this.expanded.delete(key);
    for (const key of [...this.showingAll]) if (!keys.has(key)) this.showingAll.delete(key);
    this.changed();
  }

  /** Posts an action on the current version, unless one is already on its way. */
  act(build: (version: number) => ReviewAction): void {
    if (!this.state || this.busy) return;
    host.post(build(this.state.version));
    this.busy = true;
    this.changed();
  }

  isExpanded(key: string, index: number): boolean {
    return this.expanded.get(key) ?? index < EXPANDED_FILES;
  }

  toggle(key: string, index: number): void {
    this.expanded.set(key, !this.isExpanded(key, index));
    this.changed();
  }

  isShowingAll(key: string): boolean {
    return this.showingAll.has(key);
  }

  showAll(key: string): void {
    this.showingAll.add(key);
    this.changed();
  }

  private changed(): void {
    this.revision++;
    for (const listener of [...this.listeners]) listener();
  }
}
