/** The date groups of the Sessions view: Today, Yesterday, Previous 7 days, Older. */

const DAY_MS = 24 * 60 * 60 * 1000;

export type DateGroup = 'Today' | 'Yesterday' | 'Previous 7 days' | 'Older' | 'No date';

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
  if (updatedAt === undefined) return 'No date';
  if (updatedAt >= today) return 'Today';
  if (updatedAt >= today - DAY_MS) return 'Yesterday';
  if (updatedAt >= today - 7 * DAY_MS) return 'Previous 7 days';
  return 'Older';
}
