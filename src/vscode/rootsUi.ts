/**
 * The questions about folders a user answers when a session starts, is reopened or the workspace changes,
 * as VS Code prompts (the integration tests answer them instead; the UI tests click these).
 */
import * as vscode from 'vscode';
import { listInWords } from '../roots/rootSet';
import { describeNotShared } from '../roots/workspaceRoots';
import type { RootsUi } from '../sessions/ports';

export const vscodeRootsUi: RootsUi = {
  async pickPrimary(agentName, candidates) {
    const picked = await vscode.window.showQuickPick(
      candidates.map((candidate) => ({ label: candidate.name, description: candidate.path, candidate })),
      {
        title: vscode.l10n.t('New session with {0}', agentName),
        placeHolder: vscode.l10n.t('Which folder should be the primary folder (the session’s working directory)?'),
        matchOnDescription: true,
      },
    );
    return picked?.candidate;
  },

  async askConsent(agentName, primary, folders) {
    const picked = await vscode.window.showQuickPick(
      folders.map((folder) => ({ label: folder.name, description: folder.path, picked: true, folder })),
      {
        title: vscode.l10n.t('Share workspace folders with {0}?', agentName),
        // One line of an input box, beside the "2 Selected" count: short, or it is cut off in a narrow window.
        placeHolder: vscode.l10n.t('Besides “{0}”, it may read and change these', primary.name),
        canPickMany: true,
        ignoreFocusOut: true,
        matchOnDescription: true,
      },
    );
    return picked?.map((item) => item.folder);
  },

  async singleRootChoice(agentName, primary, leftOut) {
    const continueLabel = vscode.l10n.t('Continue with “{0}” only', primary.name);
    const choose = vscode.l10n.t('Choose Another Primary Folder');
    const perFolder = vscode.l10n.t('Start One Session per Folder');
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('{0} can only see one folder', agentName),
      {
        modal: true,
        detail: `${vscode.l10n.t('{0} does not support additional workspace folders, so it will only see “{1}” ({2}).', agentName, primary.name, primary.path)}\n\n${vscode.l10n.t('Left out: {0}.', listInWords(leftOut.map((f) => `“${f.name}”`)))}`,
      },
      continueLabel,
      choose,
      perFolder,
    );
    if (answer === continueLabel) return 'continue';
    if (answer === choose) return 'choose-primary';
    if (answer === perFolder) return 'one-per-folder';
    return undefined;
  },

  async staleChoice(message) {
    const reopen = vscode.l10n.t('Reopen with Current Folders');
    const keep = vscode.l10n.t('Keep Current Folders');
    const answer = await vscode.window.showWarningMessage(message, reopen, keep);
    return answer === reopen ? 'reopen' : answer === keep ? 'keep' : undefined;
  },

  async chooseReopenRoots(question) {
    const useSession = vscode.l10n.t("Use the Session's Folders");
    const useWorkspace = vscode.l10n.t("Use This Workspace's Folders");
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('{0} “{1}” with which folders?', question.verb, question.title),
      { modal: true, detail: vscode.l10n.t('{0}\n\n{1} gets the complete list you choose.', question.lines.join('\n'), question.agentName) },
      ...(question.canUseSession ? [useSession] : []),
      ...(question.canUseWorkspace ? [useWorkspace] : []),
    );
    return answer === useSession ? 'session' : answer === useWorkspace ? 'workspace' : undefined;
  },

  async outsideFolder(agentName, folder) {
    const add = vscode.l10n.t('Add Folder to Workspace');
    const open = vscode.l10n.t('Open Folder in New Window');
    const proceed = vscode.l10n.t('Continue');
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('The session worked in a folder that is not part of this workspace'),
      {
        modal: true,
        detail: vscode.l10n.t(
          "{0}\n\nAdd it to this workspace, open it in a new window, or continue: {1} still gets the session's folders.",
          folder,
          agentName,
        ),
      },
      add,
      open,
      proceed,
    );
    return answer === add ? 'add' : answer === open ? 'open' : answer === proceed ? 'proceed' : undefined;
  },

  reportNotShared(agentName, folders) {
    if (folders.length === 0) return;
    const lines = folders.map((f) => `“${f.name}” (${f.location}): ${describeNotShared(f.reason)}`);
    void vscode.window.showInformationMessage(vscode.l10n.t('Not shared with {0}: {1}.', agentName, lines.join('; ')));
  },
};
