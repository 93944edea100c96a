/** How a file reads on a chip in a multi-root workspace: its name and the shared folder it is in. */
import type { ViewSessionState } from '../../shared/chatModel';

export function basename(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}

/**
 * The name of the session folder holding `path` (the deepest one), if any. A path reached through a
 * symbolic link (an editor's file under a linked folder; roots are real paths) is matched by the longest
 * run of trailing folder names it shares with a root, when only one root shares that many.
 */
export function folderOf(path: string, roots: ViewSessionState['roots']): string | undefined {
  let best: { name: string; length: number } | undefined;
  for (const root of roots) {
    const base = root.path.replace(/[\\/]+$/, '');
    if (path !== base && !path.startsWith(`${base}/`) && !path.startsWith(`${base}\\`)) continue;
    if (!best || base.length > best.length) best = { name: root.name, length: base.length };
  }
  if (best) return best.name;
  const parts = path.split(/[\\/]/).filter(Boolean);
  let linked: { name: string | undefined; shared: number } = { name: undefined, shared: 0 };
  for (const root of roots) {
    const tail = root.path.split(/[\\/]/).filter(Boolean);
    for (let at = parts.length - 2; at >= 0; at--) {
      let shared = 0;
      while (shared <= at && shared < tail.length && parts[at - shared] === tail[tail.length - 1 - shared]) shared++;
      if (shared === 0) continue;
      if (shared > linked.shared) linked = { name: root.name, shared };
      else if (shared === linked.shared && linked.name !== root.name) linked = { name: undefined, shared };
      break;
    }
  }
  return linked.shared >= 2 ? linked.name : undefined;
}

/** "greet.ts · app" (with `suffix`, e.g. ":1-3", after the name), or just the name outside every folder. */
export function fileChipParts(path: string, roots: ViewSessionState['roots'], suffix = ''): { name: string; folder: string | undefined } {
  return { name: `${basename(path)}${suffix}`, folder: folderOf(path, roots) };
}

/** A folder as the user knows it: its root's name and the path below it (`lib/src`), else the whole path. */
export function folderLabel(folder: string, roots: ViewSessionState['roots']): string {
  const trimmed = folder.replace(/[\\/]+$/, '');
  let best: { name: string; rest: string; length: number } | undefined;
  for (const root of roots) {
    const base = root.path.replace(/[\\/]+$/, '');
    if (trimmed !== base && !trimmed.startsWith(`${base}/`) && !trimmed.startsWith(`${base}\\`)) continue;
    if (!best || base.length > best.length) best = { name: root.name, rest: trimmed.slice(base.length), length: base.length };
  }
  return best ? `${best.name}${best.rest.replace(/\\/g, '/')}` : folder;
}
