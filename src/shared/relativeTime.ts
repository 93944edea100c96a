/**
 * How long ago something happened, for every webview ("3 minutes ago", "yesterday", "just now"), in the
 * user's language: the words from `Intl.RelativeTimeFormat`, "just now" from the l10n bundle.
 */
import * as l10n from '@vscode/l10n';

// Formatters are built once: rows are rendered again on every scroll.
const LONG = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const SHORT = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });

export interface RelativeTimeStyle {
  /** Abbreviated units ("3 min. ago"), for a dense list. */
  readonly short?: boolean;
  /** How a time more than a week away reads (a date). */
  readonly older: (ms: number) => string;
}

/** "3 minutes ago", "yesterday", "just now", or `style.older` for anything more than a week away. */
export function relativeTime(ms: number, now: number, style: RelativeTimeStyle): string {
  const format = style.short ? SHORT : LONG;
  const seconds = Math.round((ms - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return l10n.t('just now');
  if (abs < 3600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return format.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return format.format(Math.round(seconds / 86_400), 'day');
  return style.older(ms);
}
