/**
 * The list's virtual window: rows are placed by {@link RowLayout} (fixed heights per kind), only the rows in
 * view (plus some on each side) are rendered, and those are asked for from the host as they come into
 * view. The scroll position comes back after the view was hidden.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ROW_HEIGHTS } from '../../shared/historyProtocol';
import { RowLayout } from '../../shared/rowLayout';
import type { ListState, SessionsStore } from './store';

/** Rows rendered beyond the visible ones, on each side. */
const OVERSCAN = 8;

export function useVirtualList(store: SessionsStore, state: ListState | undefined, initialScrollTop: number) {
  const [scrollTop, setScrollTop] = useState(initialScrollTop);
  const [viewport, setViewport] = useState(400);
  const list = useRef<HTMLDivElement>(null);
  const restored = useRef(false);

  useEffect(() => {
    const element = list.current;
    if (!element) return undefined;
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    setViewport(element.clientHeight);
    return () => observer.disconnect();
  }, [state !== undefined]);

  const searching = state?.searching ?? false;
  const layout = useMemo(
    () => new RowLayout(state?.count ?? 0, state?.specials ?? [], searching ? ROW_HEIGHTS.sessionWithSnippet : ROW_HEIGHTS.session),
    [state],
  );

  // Restore the scroll position once after a reload of the view.
  useLayoutEffect(() => {
    if (restored.current || !state || !list.current) return;
    restored.current = true;
    list.current.scrollTop = scrollTop;
  }, [state]);

  const first = Math.max(0, layout.indexAt(scrollTop) - OVERSCAN);
  const last = Math.min(layout.count, layout.indexAt(scrollTop + viewport) + 1 + OVERSCAN);
  useEffect(() => store.want(first, last), [store, first, last, store.revision]);

  /** Scrolls the least needed to show row `index` whole. */
  const reveal = (index: number) => {
    const element = list.current;
    if (!element) return;
    const top = layout.offset(index);
    const bottom = top + layout.heightOf(index);
    if (top < element.scrollTop) element.scrollTop = top;
    else if (bottom > element.scrollTop + element.clientHeight) element.scrollTop = bottom - element.clientHeight;
  };

  return { list, layout, first, last, viewport, setScrollTop, reveal };
}
