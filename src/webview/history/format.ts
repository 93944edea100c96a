/** How times and rows read in the Sessions view: relative times, exact times, a row's accessible label and context. */
import type { SessionRow } from '../../shared/historyProtocol';
import { relativeTime } from '../../shared/relativeTime';

// Formatters are built once: rows are rendered again on every scroll.
const DAY_THIS_YEAR = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const DAY = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', year: 'numeric' });
const EXACT = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });

/** A row's time: short units, then the day (with its year when it is more than 300 days away). */
export function rowTime(ms: number, now: number): string {
  return relativeTime(ms, now, { short: true, older: (at) => (Math.abs(at - now) > 300 * 86_400_000 ? DAY : DAY_THIS_YEAR).format(at) });
}

export function exactTime(ms: number): string {
  return EXACT.format(ms);
}

/** What a screen reader says for a session row. */
export function sessionLabel(row: SessionRow, now: number): string {
  const parts = [row.title];
  if (row.updatedAt !== undefined) parts.push(`updated ${rowTime(row.updatedAt, now)}`);
  parts.push(row.agentName);
  parts.push(`folders ${row.roots.map((r) => `${r.name}${r.missing ? ' (missing)' : ''}`).join(', ')}`);
  if (row.open) parts.push('open');
  if (row.pinned) parts.push('pinned');
  if (row.hidden) parts.push('hidden');
  return parts.join(', ');
}

/** The context a row gives VS Code's native context menu (its `when` clauses and commands read it). */
export function rowContext(row: SessionRow): string {
  return JSON.stringify({
    webviewSection: 'session',
    preventDefaultContextMenuItems: true,
    key: row.key,
    canOpen: row.actions.open.enabled,
    canResume: row.actions.resume.enabled,
    canFork: row.actions.fork.enabled,
    canClose: row.actions.close.enabled,
    canDelete: row.actions.delete.enabled,
    pinned: row.pinned,
    hidden: row.hidden,
  });
}
