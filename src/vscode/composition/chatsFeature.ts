/**
 * The bottom of the application: the open sessions and the folders granted to agents, the router every agent →
 * client message goes through, checkpoints around turns, and the open chats. They need nothing of the agents:
 * the agents' launches serve them.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { Logger } from '../../common/logger';
import { findConfiner } from '../../process/confinement/find';
import { FolderGrants } from '../../roots/folderGrants';
import { LocalCommandConfinement } from '../../sessions/agents/remoteCommands';
import { Chats } from '../../sessions/chats/chats';
import { Checkpoints } from '../../sessions/review/checkpoints';
import { ActiveSessions } from '../../sessions/routing/activeSessions';
import { SessionRouter } from '../../sessions/routing/sessionRouter';
import { isDirtyFile, vscodeOpenDocuments } from '../openDocuments';
import { readCheckpointSettings, readSandbox } from '../settings';

export interface ChatsFeature {
  readonly sessions: ActiveSessions;
  readonly grants: FolderGrants;
  readonly router: SessionRouter;
  readonly checkpoints: Checkpoints;
  readonly chats: Chats;
}

export function composeChats(context: vscode.ExtensionContext, logger: Logger): ChatsFeature {
  const sessions = new ActiveSessions();
  const grants = new FolderGrants(context.workspaceState);
  // A remote agent's commands, when its entry lets it run them here, are confined like a local agent's (fail closed).
  const router = new SessionRouter({
    sessions,
    documents: vscodeOpenDocuments,
    logger,
    remoteCommands: new LocalCommandConfinement({ mode: readSandbox, findConfiner: (env) => findConfiner(process.platform, env), home: os.homedir() }),
  });
  const checkpoints = new Checkpoints({
    storageDir: path.join(context.globalStorageUri.fsPath, 'checkpoints'),
    settings: readCheckpointSettings,
    isDirty: isDirtyFile,
    logger,
  });
  const chats = new Chats({ router, sessions, documents: vscodeOpenDocuments, checkpoints, logger });
  return { sessions, grants, router, checkpoints, chats };
}
