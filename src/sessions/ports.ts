/**
 * What the application layer needs from its surroundings, as interfaces the VS Code layer implements (and
 * tests replace): the workspace and its settings, the questions only a user can answer, and where to tell
 * the user something went wrong.
 */
import type { AgentCaps } from '../acp/capabilities';
import type { AgentConnection } from '../acp/port/agentConnection';
import type { McpChoice } from '../mcp/mcpServers';
import type { Root } from '../roots/rootSet';
import type { CandidateRoot, Candidates, NotShared, PrimaryFolderSetting } from '../roots/workspaceRoots';

/** The question asked before a file outside the session's folders opens. */
export interface OutsideFileQuestion {
  readonly agentName: string;
  /** The file as the link names it (absolute). */
  readonly path: string;
  /** Why it is outside, naming the session's folders (and where a symlink leads). */
  readonly reason: string;
}

/** The workspace and the settings that shape a session's folders. */
export interface WorkspacePort {
  /** Workspace Trust: no agent runs in Restricted Mode. */
  isTrusted(): boolean;
  /** The workspace's folders that can be roots now (real paths), and those that cannot, with why. */
  candidates(): Candidates;
  /** Index of the workspace folder holding the active editor's file, if any. */
  activeEditorFolderIndex(): number | undefined;
  /** `acpWorkspace.defaultAgent`; empty means "ask". */
  defaultAgent(): string;
  /** `acpWorkspace.primaryFolder`. */
  primaryFolder(): PrimaryFolderSetting;
  /** `acpWorkspace.shareAllWorkspaceFolders`. */
  shareAllFolders(): boolean;
  /** Adds a folder at the end of the workspace; false when that was refused. */
  addFolder(folder: string): boolean;
  /** Opens a folder in a new window. */
  openFolderInNewWindow(folder: string): Promise<void>;
}

/** The agents a session can run on: started on demand. */
export interface AgentPool {
  /** Starts the agent if needed; resolves with its initialized connection. */
  start(agentName: string): Promise<AgentConnection>;
  /** Stops and starts it again. */
  restart(agentName: string): Promise<AgentConnection>;
  /** Its connection while it runs. */
  running(agentName: string): AgentConnection | undefined;
  /** Whether its process runs or is starting (its launch has decided how it is confined). */
  isRunning(agentName: string): boolean;
}

/** The MCP servers a session gets (see `mcp/mcpServers.ts`). */
export interface SessionMcpServers {
  forAgent(agentName: string, caps: AgentCaps): McpChoice;
}

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

/** The questions about folders a user answers when a session starts, is reopened, or the workspace changes. */
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

/** The questions only the session history asks. */
export interface HistoryUi {
  confirmDelete(agentName: string, title: string, open: boolean): Promise<boolean>;
  /** The new name, '' to go back to the agent's title, undefined when cancelled. */
  rename(current: string, agentCanRename: boolean): Promise<string | undefined>;
  /** Puts a session id on the clipboard and says so. */
  copyId(sessionId: string): Promise<void>;
}

/** The questions a chat asks before it acts on something the agent wrote. */
export interface ChatUi {
  /** A link or location points to a file outside the session's folders: open it anyway? */
  confirmOpenOutside(question: OutsideFileQuestion): Promise<boolean>;
}

/** Where a problem the user should know about is shown. */
export interface Notices {
  error(message: string): void;
}

/** Before an undo or redo of a turn writes files: what will change, and the button that does it. */
export interface RestoreQuestion {
  /** E.g. "Undo turn 3? 4 files change." */
  readonly title: string;
  /** One line per file: "restore app/src/a.ts", "remove docs/new.md". */
  readonly files: readonly string[];
  readonly action: string;
  /** Said below the list (files merged with the user's edits, files that cannot be restored). */
  readonly note?: string;
}

/** The review's questions (integration tests answer them instead of the real dialogs). */
export interface ReviewUi {
  confirmRestore(question: RestoreQuestion): Promise<boolean>;
}

/** What the user chose when an agent could not be confined. */
export type ConfinementChoice = 'unconfined-once' | 'settings';

/** The question when confinement is on but cannot be set up here (integration tests answer it instead). */
export interface ConfinementUi {
  /** Says why and how to fix it; "Start Unconfined Once", "Open Settings" (which it opens), or dismissed. */
  confinementUnavailable(agentName: string, reason: string, fix: string): Promise<ConfinementChoice | undefined>;
}
