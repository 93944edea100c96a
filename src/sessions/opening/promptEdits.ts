/**
 * Edit and retry a chat's prompts. ACP has no way to go back to a message: `session/fork` (unstable) copies
 * the whole session, and forking at a message is only an idea in its RFD. So an edited prompt goes to a fork
 * of the session when the agent can fork (through the same path as Fork in the Sessions view: the complete
 * root list, the user's choice when it differs) and is sent there; otherwise it is sent as a new prompt in
 * the same session. Either way the chat says plainly what happened. Retry sends the last prompt again.
 */
import * as l10n from '@vscode/l10n';
import type { Logger } from '../../common/logger';
import { chooseReopenMethod } from '../../history/reopenPolicy';
import { rootPaths } from '../../roots/rootSet';
import { chatTitle } from '../../shared/chatModel';
import type { HistoryActions } from './historyActions';
import type { SessionController } from '../turns/sessionController';
import type { SessionHistory } from './sessionHistory';
import { errorMessage } from '../../common/errors';

export interface PromptEditsOptions {
  readonly history: Pick<SessionHistory, 'view'>;
  readonly historyActions: Pick<HistoryActions, 'reopen'>;
  readonly logger: Logger;
}

/** What an edit did: sent in a fork (its chat), sent in the same session, or nothing (said in the chat). */
export type EditOutcome = { readonly forked: SessionController } | 'sameSession' | 'notSent';

export class PromptEdits {
  constructor(private readonly options: PromptEditsOptions) {}

  /**
   * Sends `text` as the edit of the prompt `entryId` (with that prompt's attachments). Resolves once the
   * prompt went out and its turn ended, or with 'notSent' when nothing was sent (the reason is in the chat).
   */
  async edit(chat: SessionController, entryId: string, text: string): Promise<EditOutcome> {
    if (!text.trim()) return 'notSent';
    if (chat.isRunning) {
      chat.thread.addInfo(l10n.t('The edited prompt was not sent: the agent is still working. Stop the turn or wait, then edit again.'));
      return 'notSent';
    }
    const attachments = chat.sentPrompt(entryId)?.attachments ?? [];
    const { session } = chat;
    const choice = chooseReopenMethod('fork', session.connection.caps, session.agentName);
    if ('reason' in choice) {
      chat.thread.addInfo(l10n.t('Sent as a new prompt: this agent cannot fork, so it still sees the earlier turns.'));
      await chat.send(text, attachments);
      return 'sameSession';
    }
    const title = chat.thread.session.title ?? chatTitle(chat.thread.session);
    const [cwd, ...additionalDirectories] = rootPaths(session.rootSet);
    const view = this.options.history.view(session.agentName, session.sessionId, { cwd: cwd!, additionalDirectories, title });
    let forked: SessionController | undefined;
    try {
      forked = view && (await this.options.historyActions.reopen(view, 'fork'));
    } catch (error) {
      const message = errorMessage(error);
      this.options.logger.warn(`Forking ${session.agentName} session ${session.sessionId} for an edited prompt: ${message}`);
      chat.thread.addError(l10n.t('The edited prompt was not sent: the session could not be forked. {0}', message), ['showLog']);
      return 'notSent';
    }
    if (!forked) {
      chat.thread.addInfo(l10n.t('The edited prompt was not sent: forking the session was cancelled.'));
      return 'notSent';
    }
    const forkTitle = forked.thread.session.title;
    chat.thread.addInfo(
      forkTitle
        ? l10n.t('Your edited prompt was sent in a fork of this session, “{0}”, in its own tab.', forkTitle)
        : l10n.t('Your edited prompt was sent in a fork of this session, in its own tab.'),
    );
    forked.thread.addInfo(
      l10n.t(
        'Forked from “{0}” to send your edited prompt; the fork keeps the conversation up to now, including later turns — ACP cannot fork at a message yet.',
        title,
      ),
    );
    await forked.send(text, attachments);
    return { forked };
  }

  /** Sends the chat's last prompt again (same text and attachments) as a new prompt. */
  async retry(chat: SessionController): Promise<void> {
    if (chat.isRunning) {
      chat.thread.addInfo(l10n.t('Retry waits until the agent’s turn has ended: stop it or wait.'));
      return;
    }
    const last = chat.lastPrompt();
    if (!last) {
      chat.thread.addInfo(l10n.t('There is no prompt to retry in this chat.'));
      return;
    }
    await chat.send(last.text, last.attachments);
  }
}
