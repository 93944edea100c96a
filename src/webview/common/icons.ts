/**
 * Every codicon the webviews show, by name. `Icon` and the controls take only these, so the build keeps just
 * their rules of codicon.css (esbuild.mjs reads this list: all 649 icons would be 29 KB of each view's CSS). An
 * icon the webviews start to show goes here first; TypeScript refuses any other name.
 */
export const ICON_NAMES = [
  'arrow-right',
  'arrow-swap',
  'check',
  'check-all',
  'checklist',
  'chevron-down',
  'chevron-right',
  'circle-filled',
  'circle-large-filled',
  'circle-large-outline',
  'circle-slash',
  'close',
  'cloud-download',
  'copy',
  'debug-disconnect',
  'debug-pause',
  'debug-stop',
  'diff',
  'diff-added',
  'diff-multiple',
  'diff-removed',
  'discard',
  'edit',
  'ellipsis',
  'error',
  'eye',
  'eye-closed',
  'file',
  'file-code',
  'file-media',
  'folder',
  'go-to-file',
  'history',
  'home',
  'info',
  'lightbulb',
  'list-ordered',
  'loading',
  'lock',
  'mention',
  'pinned',
  'question',
  'redo',
  'refresh',
  'repo-forked',
  'search',
  'selection',
  'send',
  'shield',
  'terminal',
  'tools',
  'trash',
  'unlock',
  'warning',
  'watch',
] as const;

export type IconName = (typeof ICON_NAMES)[number];

/** The classes of a codicon in HTML built as text (the markdown renderer's). */
export function iconClasses(name: IconName): string {
  return `codicon codicon-${name}`;
}
