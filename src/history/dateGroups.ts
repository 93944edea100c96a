/** The date groups of the Sessions view: Today, Yesterday, Previous 7 days, Older. */
import * as l10n from '@vscode/l10n';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A date group's id (row keys use it); {@link dateGroupLabel} is what the view shows. */
export type DateGroup = 'today' | 'yesterday' | 'week' | 'older' | 'none';

/** The date group of a time, by the local calendar of `now`. */
export function dateGroup(updatedAt: number | undefined, now: number): DateGroup {
  return groupSince(updatedAt, startOfDay(now));
}

/** The local midnight that began the day of `now`. */
export function startOfDay(now: number): number {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  return midnight.getTime();
}

/** {@link dateGroup} with today's midnight worked out once (a list groups many sessions). */
export function groupSince(updatedAt: number | undefined, today: number): DateGroup {
  if (updatedAt === undefined) return 'none';
  if (updatedAt >= today) return 'today';
  if (updatedAt >= today - DAY_MS) return 'yesterday';
  if (updatedAt >= today - 7 * DAY_MS) return 'week';
  return 'older';
}

/** The heading of a date group, in the user's language. */
export function dateGroupLabel(group: DateGroup): string {
  switch (group) {
    case 'today':
      return l10n.t('Today');
    case 'yesterday':
      return l10n.t('Yesterday');
    case 'week':
      return l10n.t('Previous 7 days');
    case 'older':
      return l10n.t('Older');
    case 'none':
      return l10n.t('No date');
  }
}
