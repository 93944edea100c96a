/** Markdown rendered into the DOM without flicker (codicons are in icon.tsx). */
import morphdom from 'morphdom';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { markdownBlocks } from '../../shared/markdownBlocks';
import { renderMarkdown } from './markdown';

/** Main-thread time a message may take to render per frame; the rest of a long one follows in the next frames. */
const FRAME_BUDGET_MS = 8;
/** Rendered HTML of blocks by their source (and the loaded images), shared by every message of the view. */
const rendered = new Map<string, string>();
const CACHE_CHARS = 8 * 1024 * 1024;
let cachedChars = 0;

function blockHtml(source: string, images: ReadonlyMap<string, string> | undefined, keep: boolean): string {
  // An image the user loads changes what a block renders to: the count of loaded images is part of the key.
  const key = `${images?.size ?? 0}\u0000${source}`;
  const hit = rendered.get(key);
  if (hit !== undefined) {
    rendered.delete(key);
    rendered.set(key, hit);
    return hit;
  }
  const html = renderMarkdown(source, images);
  if (keep) {
    rendered.set(key, html);
    cachedChars += key.length + html.length;
    for (const [old, value] of rendered) {
      if (cachedChars <= CACHE_CHARS) break;
      rendered.delete(old);
      cachedChars -= old.length + value.length;
    }
  }
  return html;
}

function blockElement(html: string): HTMLDivElement {
  const element = document.createElement('div');
  element.className = 'md-block';
  element.innerHTML = html;
  return element;
}

/**
 * Sanitized markdown, rendered block by block (shared/markdownBlocks.ts): while an agent streams, only the
 * last block changes, and it is morphed to its new HTML instead of replaced, so the text does not flicker and
 * a selection in earlier paragraphs survives. A long message renders a frame's worth of blocks at a time.
 * `images`: the remote images the user loaded (address → `data:` URL); the others show as placeholders.
 */
export function Markdown(props: { source: string; class?: string; images?: ReadonlyMap<string, string> }) {
  const ref = useRef<HTMLDivElement>(null);
  /** The block sources the DOM shows, one child each. */
  const shown = useRef<string[]>([]);
  const latest = useRef(props);
  latest.current = props;
  const pending = useRef<number | undefined>(undefined);

  useLayoutEffect(() => {
    const update = () => {
      pending.current = undefined;
      const element = ref.current;
      if (!element) return;
      const { source, images } = latest.current;
      const blocks = markdownBlocks(source);
      const started = performance.now();
      const showing = shown.current;
      let same = 0;
      while (same < blocks.length && same < showing.length && blocks[same] === showing[same]) same++;
      while (element.children.length > blocks.length) element.lastElementChild!.remove();
      let at = same;
      for (; at < blocks.length; at++) {
        if (at > same && performance.now() - started > FRAME_BUDGET_MS) break;
        // The last block may still grow: not worth remembering.
        const next = blockElement(blockHtml(blocks[at]!, images, at < blocks.length - 1));
        const current = element.children[at];
        if (current) morphdom(current, next);
        else element.appendChild(next);
      }
      shown.current = blocks.slice(0, at);
      if (at < blocks.length) pending.current = requestAnimationFrame(update);
    };
    if (pending.current === undefined) update();
  }, [props.source]);
  useLayoutEffect(() => () => cancelAnimationFrame(pending.current ?? 0), []);
  return <div ref={ref} class={`markdown ${props.class ?? ''}`} />;
}
