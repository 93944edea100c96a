/**
 * Pure text and rows for showing file changes, used by the chat's `changes` entry and the Review Changes
 * panel: the one-line summary, the numbered lines of a hunk, and how many of a file's hunk lines to render.
 */

/** What a summary needs of a changed file (both the chat's and the review panel's files have it). */
export interface CountedFile {
  readonly rootPath: string;
  readonly added: number;
  readonly removed: number;
}

/**
 * "3 files changed in 2 folders, +40 −12" (`changed`: the chat's wording) or "5 files in 2 folders, +40 −12"
 * (the review panel's); the folders are named only when there are several.
 */
export function changesSummary(files: readonly CountedFile[], wording: 'changed' | 'pending' = 'changed'): string {
  const folders = new Set(files.map((f) => f.rootPath)).size;
  const added = files.reduce((sum, f) => sum + f.added, 0);
  const removed = files.reduce((sum, f) => sum + f.removed, 0);
  const count = `${files.length} ${files.length === 1 ? 'file' : 'files'}${wording === 'changed' ? ' changed' : ''}`;
  const where = folders > 1 ? ` in ${folders} folders` : '';
  return `${count}${where}, +${added} −${removed}`;
}

/** The status letter VS Code's Git decorations use. */
export const STATUS_LETTER: Readonly<Record<'added' | 'modified' | 'deleted' | 'renamed', string>> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
};

/** One line of a unified-diff hunk with its line numbers on each side (`note`: "\ No newline at end of file"). */
export interface DiffRow {
  readonly kind: 'context' | 'added' | 'removed' | 'note';
  readonly oldLine?: number;
  readonly newLine?: number;
  /** The line without its leading ' ', '+' or '-'. */
  readonly text: string;
}

/** Numbers a hunk's lines from its header (`-oldStart,… +newStart,…`). */
export function diffRows(hunk: { readonly oldStart: number; readonly newStart: number; readonly lines: readonly string[] }): DiffRow[] {
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  return hunk.lines.map((line): DiffRow => {
    const text = line.slice(1);
    switch (line.charAt(0)) {
      case '+':
        return { kind: 'added', newLine: newLine++, text };
      case '-':
        return { kind: 'removed', oldLine: oldLine++, text };
      case '\\':
        return { kind: 'note', text: line };
      default:
        return { kind: 'context', oldLine: oldLine++, newLine: newLine++, text };
    }
  });
}

/**
 * How many lines of each hunk to render within `budget` lines for the whole file: every hunk in full while
 * the budget lasts, then part of one, then none. `hidden`: the lines left out.
 */
export function linesWithin(hunks: readonly { readonly lines: readonly unknown[] }[], budget: number): { shown: number[]; hidden: number } {
  let left = budget;
  let hidden = 0;
  const shown = hunks.map((hunk) => {
    const count = Math.min(hunk.lines.length, Math.max(0, left));
    left -= count;
    hidden += hunk.lines.length - count;
    return count;
  });
  return { shown, hidden };
}
