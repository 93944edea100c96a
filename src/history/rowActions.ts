/** Which actions a row of the Sessions view offers, and why the others are not available (the reopen policy decides Open, Resume and Fork). */
import * as l10n from '@vscode/l10n';
import type { SessionRowActions } from '../shared/historyProtocol';
import { chooseReopenMethod } from './reopenPolicy';
import type { AgentEntry, SessionView } from './sessionView';

/** Which actions a row offers, and why the others are not available. */
export function actionsFor(view: SessionView, agent: AgentEntry | undefined, open: boolean, trusted: boolean): SessionRowActions {
  const name = view.agentName;
  const no = (reason: string) => ({ enabled: false, reason });
  const yes = { enabled: true };
  if (!trusted) {
    const reason = l10n.t('Agents are not started in Restricted Mode.');
    return { open: no(reason), resume: no(reason), fork: no(reason), close: no(reason), delete: no(reason) };
  }
  if (!agent) {
    const reason = l10n.t('{0} is not configured any more.', name);
    return { open: no(reason), resume: no(reason), fork: no(reason), close: no(reason), delete: no(reason) };
  }
  const caps = agent.caps;
  // Before an agent first ran, what it supports is unknown: opening starts it and then decides.
  const offered = (verb: 'open' | 'resume' | 'fork') => {
    if (caps === undefined) return yes;
    const choice = chooseReopenMethod(verb, caps, name);
    return 'reason' in choice ? no(choice.reason) : yes;
  };
  return {
    open: open ? yes : offered('open'),
    resume: open ? no(l10n.t('It is open in a chat already.')) : offered('resume'),
    fork: offered('fork'),
    close: open ? yes : no(l10n.t('Only sessions open in this window can be closed.')),
    delete: caps === undefined || caps.sessions.delete ? yes : no(l10n.t('{0} does not support deleting sessions (session/delete).', name)),
  };
}
