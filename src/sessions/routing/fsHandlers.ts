/**
 * The agent's file reads and writes (the port's {@link FileSystemHost}), served only inside the requesting
 * session's roots (RootGuard, real paths, fail closed). A refusal answers with an error naming the path and the
 * roots, and is recorded on the session so the user sees it.
 */
import * as l10n from '@vscode/l10n';
import { ClientRefusal, RefusalCodes, type FileSystemHost } from '../../acp/port/client';
import type { Logger } from '../../common/logger';
import { AccessDeniedError, FileOperationError, readTextFile, writeTextFile, type OpenDocuments } from '../../roots/guardedFs';
import type { AgentSession, Refusal } from './agentSession';

export interface FsHandlerOptions {
  /** The session an agent's request names, among the sessions open on its connection; undefined: none. */
  readonly sessionOf: (sessionId: string) => AgentSession | undefined;
  /** Open editors (unsaved text wins over the disk); none outside VS Code. */
  readonly documents?: OpenDocuments;
  readonly logger: Logger;
  /** Called for each refusal (the VS Code layer tells the user). */
  readonly onRefusal?: (session: AgentSession, refusal: Refusal) => void;
}

/** The file system a connection serves (`serveFileSystem`): each session's, through its RootGuard. */
export function fileSystemHost(options: FsHandlerOptions): FileSystemHost {
  const sessionFor = (sessionId: string): AgentSession => {
    const session = options.sessionOf(sessionId);
    if (!session) throw new ClientRefusal(RefusalCodes.ResourceNotFound, l10n.t('No open session {0} on this connection.', sessionId), { sessionId });
    return session;
  };

  const refuse = (session: AgentSession, operation: 'read' | 'write', path: string, error: AccessDeniedError): never => {
    const refusal = session.noteRefusal({ operation, path, message: error.message });
    options.logger.warn(`Refused ${operation} of ${path} for ${session.agentName} session ${session.sessionId}: ${error.message}`);
    options.onRefusal?.(session, refusal);
    throw new ClientRefusal(RefusalCodes.InvalidParams, error.message, { path, roots: session.guard.roots, reason: error.reason });
  };

  const fail = (session: AgentSession, operation: 'read' | 'write', path: string, error: unknown): never => {
    if (error instanceof AccessDeniedError) return refuse(session, operation, path, error);
    if (error instanceof FileOperationError) {
      // Not an access problem: the agent asked for something that is not a text file there.
      throw new ClientRefusal(error.problem === 'not-found' ? RefusalCodes.ResourceNotFound : RefusalCodes.InvalidParams, error.message, { path });
    }
    throw error;
  };

  return {
    readTextFile: async (request) => {
      const session = sessionFor(request.sessionId);
      try {
        return await readTextFile(session.guard, request, options.documents);
      } catch (error) {
        return fail(session, 'read', request.path, error);
      }
    },
    writeTextFile: async (request) => {
      const session = sessionFor(request.sessionId);
      try {
        await writeTextFile(session.guard, request, options.documents);
      } catch (error) {
        fail(session, 'write', request.path, error);
      }
    },
  };
}
