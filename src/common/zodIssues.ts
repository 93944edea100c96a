/** Zod's validation issues in words, for logs and for the problems a setting or a file has. Not protocol. */
import type * as z from 'zod';

/** One readable line per zod issue: `path.to.field: message`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}
