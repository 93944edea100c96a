/** Markdown rendered into the DOM without flicker (codicons are in icon.tsx). */
import morphdom from 'morphdom';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { renderMarkdown } from './markdown';

/**
 * Sanitized markdown. While an agent streams, the same element is morphed to the new HTML instead of
 * replaced, so the text does not flicker and a selection in earlier paragraphs survives. `images`: the
 * remote images the user loaded (address → `data:` URL); the others show as placeholders.
 */
export function Markdown(props: { source: string; class?: string; images?: ReadonlyMap<string, string> }) {
  const ref = useRef<HTMLDivElement>(null);
  const last = useRef<string | undefined>(undefined);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || last.current === props.source) return;
    last.current = props.source;
    const next = document.createElement('div');
    next.innerHTML = renderMarkdown(props.source, props.images);
    morphdom(element, next, { childrenOnly: true });
  }, [props.source]);
  return <div ref={ref} class={`markdown ${props.class ?? ''}`} />;
}
