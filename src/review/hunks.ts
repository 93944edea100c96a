/**
 * Hunks of a text file between its review base and what is on disk now, and accepting or rejecting one of
 * them. Pure. Lines keep their own endings (`\n`, `\r\n`, none at the end of the file), so a file with CRLF,
 * mixed endings or no newline at its end comes back byte for byte: a hunk is applied or reverted by splicing
 * whole lines, never by re-joining text with a chosen separator.
 */
import * as l10n from '@vscode/l10n';
import { diffArrays } from 'diff';
import type { ReviewHunk } from '../shared/reviewProtocol';
import type { FileState } from './types';

/** Limits of {@link hunksOf}; the defaults suit the review panel. */
export interface HunkOptions {
  /** Unchanged lines shown around each change (3, as in `git diff`). */
  readonly context?: number;
  /** Most lines of one hunk sent (the rest is counted in `omitted`). */
  readonly maxLinesPerHunk?: number;
  /** Most edits the diff looks for before giving up (the files are then too different for hunks). */
  readonly maxEdits?: number;
}

const DEFAULT_CONTEXT = 3;
const DEFAULT_MAX_LINES_PER_HUNK = 300;
const DEFAULT_MAX_EDITS = 20_000;
/** Bytes inspected for a NUL to call a file binary (what git does). */
export const BINARY_PROBE_BYTES = 8 * 1024;
/** Larger files are reviewed as a whole. */
export const MAX_HUNK_FILE_BYTES = 1024 * 1024;
export const MAX_HUNK_FILE_LINES = 20_000;

/** The hunks of a file, or why there are none, with its line counts. */
export interface FileHunks {
  /** Present when per-hunk review is offered. */
  readonly hunks?: ReviewHunk[];
  /** Why per-hunk review is not offered, in words. */
  readonly noHunks?: string;
  readonly added: number;
  readonly removed: number;
  readonly binary: boolean;
}

/** A hunk with the line ranges `acceptHunk`/`rejectHunk` splice (0-based, whole lines with their endings). */
interface Hunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly ops: readonly Op[];
}
interface Op {
  readonly kind: ' ' | '-' | '+';
  readonly line: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whether the bytes look binary: a NUL in the first {@link BINARY_PROBE_BYTES}. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

/** The bytes as UTF-8 text (a BOM kept), or `undefined` when they are not valid UTF-8. */
export function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

export function encodeText(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/** Splits text into lines, each with its own ending (`\n` or `\r\n`); the last may have none. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    if (newline === -1) break;
    lines.push(text.slice(start, newline + 1));
    start = newline + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/**
 * Why the change from `base` to `current` (either absent) is reviewed as a whole file rather than per hunk,
 * in words; `undefined` when hunks are offered.
 */
export function noHunksReason(base: FileState | undefined, current: FileState | undefined): string | undefined {
  const sides = [base, current].filter((s): s is FileState => s !== undefined);
  if (sides.some((s) => s.mode === 'symlink')) return l10n.t('It is a symbolic link.');
  if (sides.some((s) => isBinary(s.bytes))) return l10n.t('It is a binary file.');
  if (sides.some((s) => s.bytes.length > MAX_HUNK_FILE_BYTES)) return l10n.t('It is larger than 1 MiB.');
  for (const side of sides) {
    const text = decodeText(side.bytes);
    if (text === undefined) return l10n.t('It is not UTF-8 text.');
    if (splitLines(text).length > MAX_HUNK_FILE_LINES) return l10n.t('It has more than {0} lines.', MAX_HUNK_FILE_LINES.toLocaleString('en-US'));
  }
  return undefined;
}

/**
 * The change from `base` to `current` for the review panel: hunks in unified form (context 3, each capped at
 * `maxLinesPerHunk` lines with the rest counted in `omitted`), or `noHunks` saying why not (a symbolic link,
 * binary, over 1 MiB or 20,000 lines, not UTF-8, too many differences). Absent sides count as empty text.
 */
export function fileHunks(base: FileState | undefined, current: FileState | undefined, options: HunkOptions = {}): FileHunks {
  const binary = [base, current].some((s) => s !== undefined && s.mode !== 'symlink' && isBinary(s.bytes));
  const reason = noHunksReason(base, current);
  if (reason !== undefined) return { noHunks: reason, added: 0, removed: 0, binary };
  const hunks = computeHunks(textOf(base), textOf(current), options);
  if (hunks === undefined) {
    const removed = splitLines(textOf(base)).length;
    const added = splitLines(textOf(current)).length;
    return { noHunks: l10n.t('It changed too much to review part by part.'), added, removed, binary };
  }
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const op of hunk.ops) {
      if (op.kind === '+') added++;
      else if (op.kind === '-') removed++;
    }
  }
  return { hunks: hunks.map((h) => toReviewHunk(h, options.maxLinesPerHunk ?? DEFAULT_MAX_LINES_PER_HUNK)), added, removed, binary };
}

/** The hunks from `base` to `current` (text), for the review panel. */
export function hunksOf(base: string, current: string, options: HunkOptions = {}): ReviewHunk[] {
  return (computeHunks(base, current, options) ?? []).map((h) => toReviewHunk(h, options.maxLinesPerHunk ?? DEFAULT_MAX_LINES_PER_HUNK));
}

/**
 * The base with hunk `index` of `hunksOf(base, current)` applied: what the base becomes when the user
 * accepts that hunk. The other hunks stay differences between the new base and `current`.
 * @throws RangeError when there is no such hunk.
 */
export function acceptHunk(base: string, current: string, index: number, options: HunkOptions = {}): string {
  const hunk = hunkAt(base, current, index, options);
  const lines = splitLines(base);
  const replacement = hunk.ops.filter((op) => op.kind !== '-').map((op) => op.line);
  lines.splice(hunk.oldStart, hunk.oldLines, ...replacement);
  return lines.join('');
}

/**
 * `current` with hunk `index` of `hunksOf(base, current)` reverted: what the file becomes when the user
 * rejects that hunk.
 * @throws RangeError when there is no such hunk.
 */
export function rejectHunk(base: string, current: string, index: number, options: HunkOptions = {}): string {
  const hunk = hunkAt(base, current, index, options);
  const lines = splitLines(current);
  const replacement = hunk.ops.filter((op) => op.kind !== '+').map((op) => op.line);
  lines.splice(hunk.newStart, hunk.newLines, ...replacement);
  return lines.join('');
}

function hunkAt(base: string, current: string, index: number, options: HunkOptions): Hunk {
  const hunk = (computeHunks(base, current, options) ?? [])[index];
  if (hunk === undefined) throw new RangeError(l10n.t('There is no hunk {0} in this file.', index));
  return hunk;
}

function textOf(state: FileState | undefined): string {
  return state === undefined ? '' : (decodeText(state.bytes) ?? '');
}

/** Hunks with `context` lines around each change; `undefined` when the diff gave up (too many edits). */
function computeHunks(base: string, current: string, options: HunkOptions): Hunk[] | undefined {
  const context = options.context ?? DEFAULT_CONTEXT;
  const oldLines = splitLines(base);
  const newLines = splitLines(current);
  const changes = diffArrays(oldLines, newLines, { maxEditLength: options.maxEdits ?? DEFAULT_MAX_EDITS });
  if (changes === undefined) return undefined;
  const ops: Op[] = [];
  for (const change of changes) {
    const kind = change.added ? '+' : change.removed ? '-' : ' ';
    for (const line of change.value) ops.push({ kind, line });
  }

  const hunks: Hunk[] = [];
  // Positions (in ops) of changed lines, grouped when the unchanged run between them is short enough.
  let i = 0;
  let oldAt = 0;
  let newAt = 0;
  const positions: { old: number; new: number }[] = [];
  for (const op of ops) {
    positions.push({ old: oldAt, new: newAt });
    if (op.kind !== '+') oldAt++;
    if (op.kind !== '-') newAt++;
  }
  while (i < ops.length) {
    if (ops[i]!.kind === ' ') {
      i++;
      continue;
    }
    const first = Math.max(0, i - context);
    let last = i; // last changed op of this hunk
    let j = i + 1;
    while (j < ops.length) {
      if (ops[j]!.kind !== ' ') {
        last = j;
        j++;
        continue;
      }
      let run = j;
      while (run < ops.length && ops[run]!.kind === ' ') run++;
      if (run < ops.length && run - j <= 2 * context) {
        j = run;
        continue;
      }
      break;
    }
    const end = Math.min(ops.length, last + 1 + context);
    const slice = ops.slice(first, end);
    const start = positions[first]!;
    hunks.push({
      oldStart: start.old,
      oldLines: slice.filter((op) => op.kind !== '+').length,
      newStart: start.new,
      newLines: slice.filter((op) => op.kind !== '-').length,
      ops: slice,
    });
    i = end;
  }
  return hunks;
}

function toReviewHunk(hunk: Hunk, maxLines: number): ReviewHunk {
  const shown = hunk.ops.slice(0, maxLines).map((op) => op.kind + op.line.replace(/\r?\n$/, ''));
  const omitted = hunk.ops.length - shown.length;
  return {
    // 1-based like `@@ -a,b +c,d @@`; an empty side starts at the line before (0 at the top).
    oldStart: hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart + 1,
    oldLines: hunk.oldLines,
    newStart: hunk.newLines === 0 ? hunk.newStart : hunk.newStart + 1,
    newLines: hunk.newLines,
    lines: shown,
    ...(omitted > 0 ? { omitted } : {}),
  };
}
