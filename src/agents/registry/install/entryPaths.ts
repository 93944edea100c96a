/**
 * The path rules of archive extraction, as pure functions: an entry's name becomes segments under the target
 * folder or is refused, and a link's target is resolved through the links extracted so far (as the file system
 * would follow them) to tell whether it stays inside.
 */

/** An entry name or link target that cannot be used, and why (the caller names the entry). */
export type PathProblem = 'absolute' | 'parent' | 'invalid';

/**
 * The segments of an archive entry's name below the target folder (`a/b/c` → `['a','b','c']`; `./x/` →
 * `['x']`; the root itself → `[]`). Backslashes are separators (archives made on Windows). Refused: absolute
 * names (`/x`, `C:\x`, `C:x`, `\\server\share`), any `..` segment, NUL, and on Windows a `:` in a segment
 * (an alternate data stream) or a segment ending in a dot or space (Windows drops them, so two names would meet).
 */
export function entrySegments(name: string, platform: NodeJS.Platform = process.platform): string[] | PathProblem {
  if (name.includes('\0')) return 'invalid';
  const slashed = name.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) return 'absolute';
  const segments: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return 'parent';
    if (platform === 'win32' && (segment.includes(':') || /[. ]$/.test(segment))) return 'invalid';
    segments.push(segment);
  }
  return segments;
}

/** What a path holds among the entries extracted so far. */
export type ExtractedNode = { readonly kind: 'file' } | { readonly kind: 'dir' } | { readonly kind: 'symlink'; readonly target: string };

/** Links followed before a resolution gives up (the kernel's own limit is 40). */
const MAX_HOPS = 40;

/**
 * Where `segments` (relative to the target folder) lead when every link among them is followed as the file
 * system follows it: the resulting segments, or `'escape'` when the path leaves the target folder at any step
 * (a `..` above it, an absolute link target) or loops. `nodes` holds the extracted entries by their
 * `/`-joined segments.
 */
export function resolveInside(segments: readonly string[], nodes: ReadonlyMap<string, ExtractedNode>): string[] | 'escape' {
  const resolved: string[] = [];
  const pending = [...segments];
  let hops = 0;
  while (pending.length > 0) {
    const segment = pending.shift()!;
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (resolved.length === 0) return 'escape';
      resolved.pop();
      continue;
    }
    resolved.push(segment);
    const node = nodes.get(resolved.join('/'));
    if (node?.kind !== 'symlink') continue;
    if (++hops > MAX_HOPS) return 'escape';
    const target = linkTargetSegments(node.target);
    if (target === 'escape') return 'escape';
    // A link's target is relative to the folder holding the link.
    resolved.pop();
    pending.unshift(...target);
  }
  return resolved;
}

/** A link target as raw segments (`..` kept, to be applied by {@link resolveInside}); absolute → `'escape'`. */
export function linkTargetSegments(target: string): string[] | 'escape' {
  const slashed = target.replace(/\\/g, '/');
  if (slashed === '' || slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed) || slashed.includes('\0')) return 'escape';
  return slashed.split('/');
}
