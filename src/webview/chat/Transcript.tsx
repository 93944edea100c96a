/**
 * The conversation, virtualized: beyond a couple of hundred entries, only the entries in view and about a
 * viewport on each side are in the DOM, with spacers as tall as the rest, so a frame costs the same at the
 * first entry and the ten-thousandth.
 * Entries are measured once rendered (again when their content or the width changes, and whenever a
 * ResizeObserver sees them change: a disclosure opened, an image loaded) and estimated before
 * (shared/transcriptLayout.ts holds the arithmetic). While the user is at the bottom it follows the stream;
 * once they scrolled up, the entry they read stays where it is whatever changes above or arrives below.
 * The entry holding the keyboard focus stays rendered wherever it is, so focus is never dropped.
 */
import * as l10n from '@vscode/l10n';
import type { ComponentChildren } from 'preact';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/compat';
import type { ViewEntry } from '../../shared/chatModel';
import { TranscriptLayout, type Anchor, type IndexRange } from '../../shared/transcriptLayout';
import { Entry } from './entries';
import { rememberToggle, restoreToggles } from './entryMemory';
import { remoteImages } from './remoteImages';

/** Closer than this to the bottom counts as at the bottom (the view follows new content). */
const BOTTOM_SLACK = 40;
/** Rendered beyond the viewport on each side: at least this, and at least a viewport. */
const MIN_OVERSCAN = 600;
/** Layout passes (render → measure → anchor) in one frame before the rest waits for the next frame. */
const MAX_PASSES = 4;
/**
 * A transcript of up to this many entries is rendered whole: that costs little per frame, and a screen
 * reader's browse mode and a text selection then cover the whole conversation. Longer ones are virtualized.
 */
const RENDER_WHOLE_UP_TO = 200;

/** The entries to render for a viewport from `top` of `height` px. */
function wanted(layout: TranscriptLayout, top: number, height: number): IndexRange {
  if (layout.count <= RENDER_WHOLE_UP_TO) return { first: 0, last: layout.count };
  return layout.range(top, height, Math.max(MIN_OVERSCAN, height));
}

const EntrySlot = memo(function EntrySlot(props: { entry: ViewEntry; last: boolean; running: boolean }) {
  return (
    <div class="slot" data-entry-id={props.entry.id}>
      <Entry entry={props.entry} last={props.last} running={props.running} />
    </div>
  );
});

export interface TranscriptProps {
  readonly entries: readonly ViewEntry[];
  /** A transcript arriving in pieces, to show once complete: laid out ahead, piece by piece. */
  readonly incoming?: readonly ViewEntry[];
  readonly running: boolean;
  /** Shown when there is no entry yet. */
  readonly empty: ComponentChildren;
  /** Below the last entry (Retry). */
  readonly children?: ComponentChildren;
  readonly onClick: (event: MouseEvent) => void;
}

export function Transcript(props: TranscriptProps) {
  const { entries } = props;
  /** The layout shown, and one for a transcript arriving in pieces (laid out as it arrives, then shown). */
  const layouts = useRef<{ shown: TranscriptLayout; incoming: TranscriptLayout | undefined }>({ shown: new TranscriptLayout(), incoming: undefined });
  const scroller = useRef<HTMLDivElement>(null);
  const items = useRef<HTMLDivElement>(null);
  /** Following the bottom; else `anchor` is what the user reads. */
  const stick = useRef(true);
  const anchor = useRef<Anchor | undefined>(undefined);
  /** The last user entry seen at the end of the transcript (a new one is a prompt just sent). */
  const lastUser = useRef<string | null>(null);
  const view = useRef({ top: 0, height: 0 });
  const [width, setWidth] = useState(0);
  const [focused, setFocused] = useState<string | undefined>(undefined);
  const [, setPass] = useState(0);
  const observed = useRef(new Set<Element>());
  const passes = useRef({ frame: -1, count: 0 });

  if (props.incoming) {
    layouts.current.incoming ??= new TranscriptLayout();
    layouts.current.incoming.sync(props.incoming, width);
  } else if (layouts.current.incoming) {
    // What arrived in pieces is shown: its layout (only the last piece to add) takes over.
    layouts.current = { shown: layouts.current.incoming, incoming: undefined };
  }
  const layout = layouts.current.shown;
  layout.sync(entries, width);
  // A prompt the user just sent ends the transcript: show it and follow the answer, wherever the view was (as
  // chat apps do). `null` until the first render, which only notes what is there.
  const endUser = entries.at(-1)?.kind === 'user' ? entries.at(-1)!.id : undefined;
  if (lastUser.current === null) lastUser.current = endUser ?? '';
  else if (endUser !== undefined && endUser !== lastUser.current) {
    lastUser.current = endUser;
    stick.current = true;
    anchor.current = undefined;
  }
  // While following, the view is the end of the transcript, wherever the last layout left the scroll position.
  const top = stick.current ? Math.max(0, layout.total - view.current.height) : view.current.top;
  const range = wanted(layout, top, view.current.height);
  const slots = layout.slots(range, focused === undefined ? [] : [focused]);
  const rendered = useRef('');
  rendered.current = `${range.first}:${range.last}:${focused ?? ''}`;

  /** Where the view was scrolled when it was last placed or read (`undefined` before the first time). */
  const placedTop = useRef<number | undefined>(undefined);

  /** What the scroll position says: following the bottom, or reading at an anchor. */
  const readScroll = useCallback((element: HTMLDivElement, list: HTMLDivElement): void => {
    const layout = layouts.current.shown;
    stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < BOTTOM_SLACK;
    view.current = { top: element.scrollTop - list.offsetTop, height: element.clientHeight };
    anchor.current = stick.current ? undefined : layout.anchorAt(view.current.top);
    placedTop.current = element.scrollTop;
  }, []);

  /** Puts the scroll position where it belongs: the bottom, or the anchor. Returns whether the range changed. */
  const place = useCallback((): boolean => {
    const element = scroller.current;
    const list = items.current;
    if (!element || !list) return false;
    // Scrolled since the last placement, its scroll event not handled yet (it comes with the next frame, and a
    // streamed chunk can come first): the scroll wins over following the bottom.
    if (placedTop.current !== undefined && Math.abs(element.scrollTop - placedTop.current) > 1) readScroll(element, list);
    const layout = layouts.current.shown;
    const itemsTop = list.offsetTop;
    if (stick.current) {
      element.scrollTop = element.scrollHeight;
    } else if (anchor.current) {
      const position = layout.positionOf(anchor.current);
      if (position !== undefined && Math.abs(element.scrollTop - (itemsTop + position)) > 0.5) element.scrollTop = itemsTop + position;
    }
    view.current = { top: element.scrollTop - itemsTop, height: element.clientHeight };
    placedTop.current = element.scrollTop;
    if (!stick.current) anchor.current = layout.anchorAt(view.current.top);
    const next = wanted(layout, stick.current ? Math.max(0, layout.total - view.current.height) : view.current.top, view.current.height);
    return !rendered.current.startsWith(`${next.first}:${next.last}:`);
  }, [readScroll]);

  /** Another layout pass, now or (beyond a few in one frame) in the next frame. */
  const again = useCallback(() => {
    const frame = Math.floor(performance.now() / 16);
    if (passes.current.frame !== frame) passes.current = { frame, count: 0 };
    if (++passes.current.count <= MAX_PASSES) setPass((n) => n + 1);
    else requestAnimationFrame(() => setPass((n) => n + 1));
  }, []);

  /** Measures rendered entries that need it; true when an offset moved. */
  const measure = useCallback((only?: ReadonlyMap<Element, number>): boolean => {
    let moved = false;
    const layout = layouts.current.shown;
    const list = items.current;
    if (!list) return false;
    for (const child of list.children) {
      const id = (child as HTMLElement).dataset['entryId'];
      if (id === undefined) continue;
      const index = layout.indexOf(id);
      if (index === undefined) continue;
      const height = only?.get(child);
      if (height !== undefined) moved = layout.measured(index, height) || moved;
      else if (!only && layout.needsMeasuring(index)) moved = layout.measured(index, child.getBoundingClientRect().height) || moved;
    }
    return moved;
  }, []);

  const resizes = useMemo(
    () =>
      new ResizeObserver((records) => {
        let sizes: Map<Element, number> | undefined;
        for (const record of records) {
          if (record.target === scroller.current) {
            const contentWidth = Math.round(record.contentRect.width);
            setWidth((current) => (current === contentWidth ? current : contentWidth));
            continue;
          }
          const height = record.borderBoxSize[0]?.blockSize ?? record.target.getBoundingClientRect().height;
          (sizes ??= new Map()).set(record.target, height);
        }
        // An entry changed size outside a render (a disclosure, an image, a font): keep the reading position.
        const moved = sizes ? measure(sizes) : false;
        if (place() || moved) again();
      }),
    [measure, place, again],
  );
  useEffect(() => () => resizes.disconnect(), [resizes]);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    resizes.observe(element);
    element.addEventListener('toggle', rememberToggle, true);
    return () => element.removeEventListener('toggle', rememberToggle, true);
  }, [resizes]);

  // After every render: observe and restore new slots, measure what changed, put the scroll position back.
  useLayoutEffect(() => {
    const list = items.current;
    if (!list) return;
    const current = new Set<Element>();
    for (const child of list.children) {
      const id = (child as HTMLElement).dataset['entryId'];
      if (id === undefined) continue;
      current.add(child);
      if (!observed.current.has(child)) {
        observed.current.add(child);
        resizes.observe(child);
        restoreToggles(child as HTMLElement, id);
      }
    }
    for (const element of observed.current) {
      if (!current.has(element)) {
        resizes.unobserve(element);
        observed.current.delete(element);
      }
    }
    // Images the user loaded before this view was (re)created show again, in entries rendered anew too.
    remoteImages.restore(list);
    measure();
    if (place()) again();
  });

  const onScroll = () => {
    const element = scroller.current;
    const list = items.current;
    if (!element || !list) return;
    const layout = layouts.current.shown;
    readScroll(element, list);
    const next = wanted(layout, view.current.top, view.current.height);
    if (!rendered.current.startsWith(`${next.first}:${next.last}:`)) again();
  };

  // The entry holding the focus stays rendered (scrolled out of view, it would drop the focus to the page).
  const onFocusIn = (event: FocusEvent) => {
    const id = (event.target as HTMLElement).closest<HTMLElement>('[data-entry-id]')?.dataset['entryId'];
    setFocused(id);
  };
  const onFocusOut = (event: FocusEvent) => {
    // Only when the focus moves elsewhere in the view: when the window loses it, it comes back to the same element.
    const next = event.relatedTarget as Node | null;
    if (next && !scroller.current?.contains(next)) setFocused(undefined);
  };

  return (
    <div
      class="transcript"
      ref={scroller}
      role="log"
      aria-live="off"
      aria-label={l10n.t('Conversation')}
      onScroll={onScroll}
      onClick={props.onClick}
      onFocusIn={onFocusIn}
      onFocusOut={onFocusOut}
    >
      {entries.length === 0 ? props.empty : null}
      <div class="transcript-items" ref={items}>
        {slots.map((slot) =>
          slot.kind === 'gap' ? (
            <div key={slot.key} class="transcript-gap" style={{ height: `${slot.height}px` }} aria-hidden="true" />
          ) : (
            <EntrySlot key={entries[slot.index]!.id} entry={entries[slot.index]!} last={slot.index === entries.length - 1} running={props.running} />
          ),
        )}
      </div>
      {props.children}
    </div>
  );
}
