/**
 * The questions about folders a user answers when a session starts or the workspace changes. An
 * interface, so the integration tests can answer them while the UI tests click the real prompts.
 */
import * as vscode from 'vscode';
import { listInWords, type Root } from '../roots/rootSet';
import { describeNotShared, type CandidateRoot, type NotShared } from '../roots/workspaceRoots';

export type SingleRootChoice = 'continue' | 'choose-primary' | 'one-per-folder';
export type StaleChoice = 'reopen' | 'keep';
/** Which root list a reopened or forked session gets. */
export type ReopenRootsChoice = 'session' | 'workspace';
/** What to do when a session's working folder is not a folder of this workspace. */
export type OutsideFolderChoice = 'add' | 'open' | 'proceed';

/** What the reopen prompt shows. */
export interface ReopenRootsQuestion {
  readonly agentName: string;
  /** "Open", "Resume" or "Fork". */
  readonly verb: string;
  readonly title: string;
  /** The differences in words (see describeRootChange). */
  readonly lines: readonly string[];
  readonly canUseSession: boolean;
  readonly canUseWorkspace: boolean;
}

export interface RootsUi {
  /** Which folder is the session's primary folder (its cwd)? undefined = cancelled. */
  pickPrimary(agentName: string, candidates: readonly CandidateRoot[]): Promise<CandidateRoot | undefined>;
  /** Which of these folders may the agent see? The subset granted, or undefined when cancelled. */
  askConsent(agentName: string, primary: Root, folders: readonly Root[]): Promise<readonly Root[] | undefined>;
  /** The agent takes only one folder: go on with the primary only, pick another, or one session per folder? */
  singleRootChoice(agentName: string, primary: Root, leftOut: readonly Root[]): Promise<SingleRootChoice | undefined>;
  /** The workspace folders changed under open sessions: reopen them with the current folders, or keep theirs? */
  staleChoice(message: string): Promise<StaleChoice | undefined>;
  /** Tell the user which folders are not shared and why (not-local, missing). */
  reportNotShared(agentName: string, folders: readonly NotShared[]): void;
  /** A reopened or forked session's folders differ from the workspace's, or are not all allowed: which list? */
  chooseReopenRoots(question: ReopenRootsQuestion): Promise<ReopenRootsChoice | undefined>;
  /** The session's working folder is not in this workspace: add it, open it, or go on as it is? */
  outsideFolder(agentName: string, folder: string): Promise<OutsideFolderChoice | undefined>;
}

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
        placeHolder: `Besides “${primary.name}”, the agent may read and change the checked folders`,
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
