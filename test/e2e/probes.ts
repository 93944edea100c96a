/**
 * What the UI tests read from a page's DOM (the tests compile without the DOM library: these are the few
 * members they use), and colour arithmetic for contrast checks.
 */

export interface ProbeRect {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  readonly width: number;
  readonly height: number;
}

export interface ProbeStyle {
  readonly [name: string]: string;
}

export interface ProbeNode {
  readonly textContent: string | null;
}

export interface ProbeElement extends ProbeNode {
  readonly className: string;
  readonly tagName: string;
  readonly scrollWidth: number;
  readonly clientWidth: number;
  readonly scrollHeight: number;
  readonly clientHeight: number;
  readonly parentElement: ProbeElement | null;
  readonly lastElementChild: ProbeElement | null;
  readonly previousSibling: ProbeNode | null;
  readonly nextSibling: ProbeNode | null;
  readonly ownerDocument: {
    readonly documentElement: ProbeElement;
    readonly body: ProbeElement;
    readonly activeElement: ProbeElement | null;
    readonly defaultView: { getComputedStyle(element: ProbeElement): ProbeStyle & { getPropertyValue(name: string): string } } | null;
    createElement(tag: string): ProbeElement;
    createRange(): { selectNodeContents(node: ProbeNode): void; getClientRects(): ArrayLike<ProbeRect> };
    querySelector(selector: string): ProbeElement | null;
    querySelectorAll(selector: string): ArrayLike<ProbeElement>;
  };
  getBoundingClientRect(): ProbeRect;
  getAttribute(name: string): string | null;
  closest(selector: string): ProbeElement | null;
  querySelector(selector: string): ProbeElement | null;
  querySelectorAll(selector: string): ArrayLike<ProbeElement>;
}

/** An `rgb()`/`rgba()` colour as [r, g, b, a]. */
export function parseColour(text: string): [number, number, number, number] {
  const match = /rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:[,\s/]+([\d.]+%?))?\s*\)/.exec(text);
  if (!match) throw new Error(`not a colour: ${text}`);
  const alpha = match[4] === undefined ? 1 : match[4].endsWith('%') ? parseFloat(match[4]) / 100 : parseFloat(match[4]);
  return [Number(match[1]), Number(match[2]), Number(match[3]), alpha];
}

function luminance([r, g, b]: readonly number[]): number {
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r!) + 0.7152 * channel(g!) + 0.0722 * channel(b!);
}

/** `top` drawn over the opaque `bottom`. */
function over(top: readonly number[], bottom: readonly number[]): [number, number, number] {
  const a = top[3] ?? 1;
  return [0, 1, 2].map((i) => top[i]! * a + bottom[i]! * (1 - a)) as [number, number, number];
}

/**
 * The WCAG contrast ratio of a text colour on the backgrounds under it (innermost first, as computed
 * `background-color`s; transparent ones are skipped, translucent ones blended over what is below).
 */
export function contrastOf(foreground: string, backgrounds: readonly string[]): number {
  let base: [number, number, number] = [255, 255, 255];
  const layers = backgrounds.map(parseColour).filter((c) => c[3] > 0);
  const opaque = layers.findIndex((c) => c[3] >= 1);
  if (opaque >= 0) base = [layers[opaque]![0], layers[opaque]![1], layers[opaque]![2]];
  for (const layer of layers.slice(0, opaque >= 0 ? opaque : layers.length).reverse()) base = over(layer, base);
  const text = over(parseColour(foreground), base);
  const [l1, l2] = [luminance(text), luminance(base)].sort((a, b) => b - a) as [number, number];
  return (l1 + 0.05) / (l2 + 0.05);
}
