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
        title: `New session with ${agentName}`,
        placeHolder: 'Which folder should be the primary folder (the session’s working directory)?',
        matchOnDescription: true,
      },
    );
    return picked?.candidate;
  },

  async askConsent(agentName, primary, folders) {
    const picked = await vscode.window.showQuickPick(
      folders.map((folder) => ({ label: folder.name, description: folder.path, picked: true, folder })),
      {
        title: `Share workspace folders with ${agentName}?`,
        // One line of an input box, beside the "2 Selected" count: short, or it is cut off in a narrow window.
        placeHolder: `Besides “${primary.name}”, it may read and change these`,
        canPickMany: true,
        ignoreFocusOut: true,
        matchOnDescription: true,
      },
    );
    return picked?.map((item) => item.folder);
  },

  async singleRootChoice(agentName, primary, leftOut) {
    const continueLabel = `Continue with “${primary.name}” only`;
    const choose = 'Choose Another Primary Folder';
    const perFolder = 'Start One Session per Folder';
    const answer = await vscode.window.showWarningMessage(
      `${agentName} can only see one folder`,
      {
        modal: true,
        detail:
          `${agentName} does not support additional workspace folders, so it will only see “${primary.name}” (${primary.path}).\n\n` +
          `Left out: ${listInWords(leftOut.map((f) => `“${f.name}”`))}.`,
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
    const reopen = 'Reopen with Current Folders';
    const keep = 'Keep Current Folders';
    const answer = await vscode.window.showWarningMessage(message, reopen, keep);
    return answer === reopen ? 'reopen' : answer === keep ? 'keep' : undefined;
  },

  async chooseReopenRoots(question) {
    const useSession = "Use the Session's Folders";
    const useWorkspace = "Use This Workspace's Folders";
    const answer = await vscode.window.showWarningMessage(
      `${question.verb} “${question.title}” with which folders?`,
      { modal: true, detail: `${question.lines.join('\n')}\n\n${question.agentName} gets the complete list you choose.` },
      ...(question.canUseSession ? [useSession] : []),
      ...(question.canUseWorkspace ? [useWorkspace] : []),
    );
    return answer === useSession ? 'session' : answer === useWorkspace ? 'workspace' : undefined;
  },

  async outsideFolder(agentName, folder) {
    const add = 'Add Folder to Workspace';
    const open = 'Open Folder in New Window';
    const proceed = 'Continue';
    const answer = await vscode.window.showWarningMessage(
      'The session worked in a folder that is not part of this workspace',
      {
        modal: true,
        detail: `${folder}\n\nAdd it to this workspace, open it in a new window, or continue: ${agentName} still gets the session's folders.`,
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
    void vscode.window.showInformationMessage(`Not shared with ${agentName}: ${lines.join('; ')}.`);
  },
};
