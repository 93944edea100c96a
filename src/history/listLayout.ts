/**
 * Where each row of the Sessions view's list comes from, without an object per row: the list is a few blocks
 * (a heading or status row, the pinned sessions, a date group as a range of an agent's scoped order, the
 * search's hits), and a row index is found by its block. A million sessions in four date groups are a
 * dozen blocks.
 */
import type { GroupRow, SpecialRow, StatusRow } from '../shared/historyProtocol';
import type { AgentSessions } from './agentSessions';

/** A session in the list: an agent's sessions and its slot; `byTitle` for a search hit found by its title. */
export interface ListedSession {
  readonly sessions: AgentSessions;
  readonly slot: number;
  readonly byTitle?: boolean;
}

export type Block =
  | { readonly kind: 'row'; readonly row: GroupRow | StatusRow }
  | { readonly kind: 'sessions'; readonly sessions: readonly ListedSession[] }
  /** Positions [from, to) of an agent's scoped order, leaving out the (sorted) positions in `skip`. */
  | { readonly kind: 'range'; readonly sessions: AgentSessions; readonly from: number; readonly to: number; readonly skip: readonly number[] };

export type LaidOut = { readonly kind: 'row'; readonly row: GroupRow | StatusRow } | { readonly kind: 'session'; readonly session: ListedSession };

export class ListLayout {
  private readonly starts: number[] = [];
  readonly count: number;

  constructor(private readonly blocks: readonly Block[]) {
    let start = 0;
    for (const block of blocks) {
      this.starts.push(start);
      start += sizeOf(block);
    }
    this.count = start;
  }

  /** The rows that are not sessions (headings, status rows), for the webview to place every row. */
  specials(): SpecialRow[] {
    const specials: SpecialRow[] = [];
    this.blocks.forEach((block, i) => {
      if (block.kind !== 'row') return;
      const row = block.row;
      specials.push({ index: this.starts[i]!, kind: row.kind === 'status' ? 'status' : row.level === 1 ? 'group1' : 'group2' });
    });
    return specials;
  }

  /** Rows [from, to), each a heading or status row, or a session. */
  slice(from: number, to: number): LaidOut[] {
    const out: LaidOut[] = [];
    const end = Math.min(to, this.count);
    let b = this.blockAt(from);
    for (let index = Math.max(0, from); index < end;) {
      const block = this.blocks[b]!;
      const start = this.starts[b]!;
      const stop = Math.min(end, start + sizeOf(block));
      switch (block.kind) {
        case 'row':
          out.push({ kind: 'row', row: block.row });
          break;
        case 'sessions':
          for (let i = index; i < stop; i++) out.push({ kind: 'session', session: block.sessions[i - start]! });
          break;
        case 'range': {
          const scoped = block.sessions.scoped;
          for (let i = index; i < stop; i++)
            out.push({ kind: 'session', session: { sessions: block.sessions, slot: scoped.at(positionIn(block, i - start)) } });
          break;
        }
      }
      index = stop;
      b++;
    }
    return out;
  }

  /**
   * The row of `sessions`' slot `slot`, or -1 when the list does not show it; the nearest to `near` when it
   * shows more than once. Costs a binary search per range and a scan of the explicit lists (pinned, hits).
   */
  indexOf(sessions: AgentSessions, slot: number, near = 0): number {
    let best = -1;
    const consider = (index: number) => {
      if (best < 0 || Math.abs(index - near) < Math.abs(best - near)) best = index;
    };
    this.blocks.forEach((block, b) => {
      const start = this.starts[b]!;
      switch (block.kind) {
        case 'row':
          return;
        case 'sessions':
          block.sessions.forEach((listed, i) => {
            if (listed.sessions === sessions && listed.slot === slot) consider(start + i);
          });
          return;
        case 'range': {
          if (block.sessions !== sessions) return;
          const position = sessions.scoped.positionOf(slot, block.from, block.to);
          if (position >= block.to || sessions.scoped.at(position) !== slot) return;
          let skipped = 0;
          for (const s of block.skip) {
            if (s === position) return;
            if (s < position) skipped++;
            else break;
          }
          consider(start + position - block.from - skipped);
          return;
        }
      }
    });
    return best;
  }

  /** The index of the block that holds row `index`. */
  private blockAt(index: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

function sizeOf(block: Block): number {
  switch (block.kind) {
    case 'row':
      return 1;
    case 'sessions':
      return block.sessions.length;
    case 'range':
      return block.to - block.from - block.skip.length;
  }
}

/** The position of the k-th kept row of a range. */
function positionIn(block: Extract<Block, { kind: 'range' }>, k: number): number {
  let position = block.from + k;
  for (const skipped of block.skip) {
    if (skipped <= position) position++;
    else break;
  }
  return position;
}
