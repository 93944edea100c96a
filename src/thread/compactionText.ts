/** The chat's words for a compaction of the context (`compaction_update`). */
import * as l10n from '@vscode/l10n';

/** What the chat says about a compaction of the context, and why it failed when the agent said. */
export function compactionText(status: string, error: string | null | undefined): string {
  const text =
    status === 'in_progress'
      ? l10n.t('Context compaction in progress')
      : status === 'completed'
        ? l10n.t('Context compaction completed')
        : status === 'failed'
          ? l10n.t('Context compaction failed')
          : status === 'cancelled'
            ? l10n.t('Context compaction cancelled')
            : l10n.t('Context compaction: {0}', status);
  return error ? l10n.t('{0}: {1}', text, error) : text;
}
