/**
 * The questions and prompts the application asks through ports, each answered by VS Code's own UI unless an
 * integration test put a scripted one in its place (`TestApi.set…Ui`). Every feature reads them at the moment it
 * asks, so a replacement takes effect at once.
 */
import type { RemoteAgentUi } from '../../sessions/agents/addRemoteAgent';
import type { ChatUi, ConfinementUi, HistoryUi, ReviewUi, RootsUi } from '../../sessions/ports';
import { vscodeConfinementUi } from '../confinementUi';
import { vscodeChatUi } from '../chat/chatUi';
import { vscodeHistoryUi } from '../history/historyUi';
import { vscodeRemoteAgentUi, vscodeRemoteTokenUi, type RemoteTokenUi } from '../remoteCommands';
import { vscodeReviewUi } from '../review/changeActions';
import { vscodeRootsUi } from '../rootsUi';
import { vscodeStartFailureUi, type StartFailureUi } from '../startFailureUi';

export interface Uis {
  roots: RootsUi;
  history: HistoryUi;
  chat: ChatUi;
  startFailure: StartFailureUi;
  review: ReviewUi;
  confinement: ConfinementUi;
  remoteAgent: RemoteAgentUi;
  remoteToken: RemoteTokenUi;
}

/** VS Code's own: what a replacement falls back to when a test takes it away. */
export const VSCODE_UIS: Readonly<Uis> = {
  roots: vscodeRootsUi,
  history: vscodeHistoryUi,
  chat: vscodeChatUi,
  startFailure: vscodeStartFailureUi,
  review: vscodeReviewUi,
  confinement: vscodeConfinementUi,
  remoteAgent: vscodeRemoteAgentUi,
  remoteToken: vscodeRemoteTokenUi,
};
