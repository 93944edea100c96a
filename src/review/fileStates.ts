/** Small helpers over {@link FileState}: equality, a fingerprint to compare later, pending keys. */
import { createHash } from 'node:crypto';
import type { FileState } from './types';

/** Same bytes and mode (both absent counts as the same). */
export function sameState(a: FileState | undefined, b: FileState | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.mode === b.mode && Buffer.from(a.bytes.buffer, a.bytes.byteOffset, a.bytes.byteLength).equals(b.bytes);
}

/** A fingerprint of a file's state (`absent` when there is none), to check later that it did not change. */
export function stateHash(state: FileState | undefined): string {
  if (state === undefined) return 'absent';
  return `${state.mode}:${createHash('sha256').update(state.bytes).digest('hex')}`;
}

/** A pending file's key: `${root}\u0000${path}`. */
export function keyOf(root: string, path: string): string {
  return `${root}\u0000${path}`;
}
