/**
 * The list's keyboard: arrows, Page Up/Down, Home/End move between sessions and status rows (headers are
 * skipped); Enter opens a session or runs a status row's action; Delete deletes; F2 renames.
 */
import type { RowLayout } from '../../shared/rowLayout';
import type { SessionAction } from '../../shared/historyProtocol';
import { host } from './host';
import type { SessionsStore } from './store';

export interface ListKeyboard {
  /** The next row the keyboard can land on from `from`, going `delta` (1 or -1). */
  step(from: number, delta: number): number | undefined;
  onKeyDown(event: KeyboardEvent): void;
}

export function useListKeyboard(options: {
  store: SessionsStore;
  layout: RowLayout;
  viewport: number;
  activeIndex: number | undefined;
  select: (index: number) => void;
  run: (action: SessionAction, key: string) => void;
}): ListKeyboard {
  const { store, layout, viewport, activeIndex, select, run } = options;

  const step = (from: number, delta: number): number | undefined => {
    for (let i = from + delta; i >= 0 && i < layout.count; i += delta) {
      const row = store.row(i);
      if (!row || row.kind !== 'group') return i;
    }
    return undefined;
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const current = activeIndex ?? -1;
    const page = Math.max(1, Math.floor(viewport / layout.rowHeight) - 1);
    const row = activeIndex === undefined ? undefined : store.row(activeIndex);
    let next: number | undefined;
    switch (event.key) {
      case 'ArrowDown':
        next = step(current, 1);
        break;
      case 'ArrowUp':
        next = current <= 0 ? undefined : step(current, -1);
        break;
      case 'PageDown':
        next = step(Math.min(layout.count - 1, current + page) - 1, 1) ?? step(current, 1);
        break;
      case 'PageUp':
        next = step(Math.max(0, current - page) + 1, -1) ?? step(current, -1);
        break;
      case 'Home':
        next = step(-1, 1);
        break;
      case 'End':
        next = step(layout.count, -1);
        break;
      case 'Enter':
        if (row?.kind === 'session') run('open', row.key);
        else if (row?.kind === 'status' && row.action) host.post({ type: 'status', action: row.action, agentName: row.agentName });
        event.preventDefault();
        return;
      case 'Delete':
        if (row?.kind === 'session' && row.actions.delete.enabled) run('delete', row.key);
        event.preventDefault();
        return;
      case 'F2':
        if (row?.kind === 'session') run('rename', row.key);
        event.preventDefault();
        return;
      default:
        return;
    }
    event.preventDefault();
    if (next !== undefined) select(next);
  };

  return { step, onKeyDown };
}
