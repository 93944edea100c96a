/**
 * The Sessions webview's copy of the list: the host's latest state (size, layout, settings) and the rows
 * received so far for it. Rows of an older version are dropped; rows not received yet are asked for in
 * windows around what is on screen.
 */
import { HistoryRequests, type HostToSessions, type Row, type ViewSettings } from '../../shared/historyProtocol';
import { host } from './host';

export type ListState = Extract<HostToSessions, { type: 'state' }>;

/** Rows asked for beyond the visible ones, on each side. */
const PREFETCH = 40;

type Listener = () => void;

export class SessionsStore {
  state: ListState | undefined;
  private rows = new Map<number, Row>();
  private requested: { version: number; from: number; to: number } | undefined;
  /** The settings last sent, until a state says the host applied them. */
  private sent: { seq: number; settings: ViewSettings } | undefined;
  private readonly listeners = new Set<Listener>();
  /** Bumped when anything shown changes. */
  revision = 0;

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The host's new state of the list (its size, layout, settings): rows of the old one are forgotten; the
   * rows it came with (the window in view) are shown at once.
   */
  receive(message: ListState): void {
    this.state = message;
    this.rows = new Map();
    this.requested = undefined;
    const window = message.window;
    if (window) {
      window.rows.forEach((row, i) => this.rows.set(window.from + i, row));
      this.requested = { version: message.version, from: window.from, to: window.from + window.rows.length };
    }
    this.changed();
  }

  /**
   * The settings in effect: the ones last sent while the host has not applied them yet, else the host's.
   * (Clearing the search and at once picking a scope must not bring the old search back.)
   */
  get settings(): ViewSettings | undefined {
    const state = this.state;
    if (!state) return undefined;
    return this.sent && this.sent.seq > state.settingsSeq ? this.sent.settings : state.settings;
  }

  /** Changes some settings, on top of any change the host has not applied yet. */
  sendSettings(change: Partial<ViewSettings>): void {
    const current = this.settings;
    if (!this.state || !current) return;
    const seq = Math.max(this.sent?.seq ?? 0, this.state.settingsSeq) + 1;
    this.sent = { seq, settings: { ...current, ...change } };
    host.post({ type: 'settings', seq, settings: this.sent.settings });
    this.changed();
  }

  row(index: number): Row | undefined {
    return this.rows.get(index);
  }

  /** Makes sure rows [from, to) are here or asked for. */
  want(from: number, to: number): void {
    const state = this.state;
    if (!state) return;
    const end = Math.min(to, state.count);
    let missing = false;
    for (let i = from; i < end; i++) {
      if (!this.rows.has(i)) {
        missing = true;
        break;
      }
    }
    if (!missing) return;
    const r = this.requested;
    if (r && r.version === state.version && r.from <= from && r.to >= end) return;
    const window = { version: state.version, from: Math.max(0, from - PREFETCH), to: Math.min(state.count, end + PREFETCH) };
    this.requested = window;
    host.request(HistoryRequests.rows, window).then(
      ({ version, rows }) => {
        // A list that changed meanwhile has rows of its own (asked for when it arrives).
        if (version !== window.version || version !== this.state?.version) return;
        rows.forEach((row, i) => this.rows.set(window.from + i, row));
        this.changed();
      },
      () => {
        if (this.requested === window) this.requested = undefined;
      },
    );
  }

  private changed(): void {
    this.revision++;
    for (const listener of [...this.listeners]) listener();
  }
}
