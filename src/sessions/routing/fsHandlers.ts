/**
 * The agent's `fs/read_text_file` and `fs/write_text_file`, served only inside the requesting session's
 * roots (RootGuard, real paths, fail closed). A refusal answers with an error naming the path and the
 * roots, and is recorded on the session so the user sees it.
 */
import * as l10n from '@vscode/l10n';
import { HandlerError, type AcpConnection } from '../../acp/connection';
import { ErrorCodes } from '../../acp/errors';
import type { Logger } from '../../common/logger';
import { ReadTextFileMethod, WriteTextFileMethod } from '../../acp/schema/index';
import { AccessDeniedError, FileOperationError, readTextFile, writeTextFile, type OpenDocuments } from '../../roots/guardedFs';
import type { ActiveSessions } from './activeSessions';
import type { AgentSession, Refusal } from './agentSession';

export interface FsHandlerOptions {
  readonly sessions: ActiveSessions;
  /** Open editors (unsaved text wins over the disk); none outside VS Code. */
  readonly documents?: OpenDocuments;
  readonly logger: Logger;
  /** Called for each refusal (the VS Code layer tells the user). */
  readonly onRefusal?: (session: AgentSession, refusal: Refusal) => void;
}

export function registerFsHandlers(connection: AcpConnection, options: FsHandlerOptions): void {
  const sessionFor = (sessionId: string): AgentSession => {
    const session = options.sessions.find(connection.agentName, sessionId);
    if (!session || session.connection !== connection) {
      throw new HandlerError(ErrorCodes.ResourceNotFound, l10n.t('No open session {0} on this connection.', sessionId), { sessionId });
    }
    return session;
  };

  const refuse = (session: AgentSession, operation: 'read' | 'write', path: string, error: AccessDeniedError): never => {
    const refusal = session.noteRefusal({ operation, path, message: error.message });
    options.logger.warn(`Refused ${operation} of ${path} for ${connection.agentName} session ${session.sessionId}: ${error.message}`);
    options.onRefusal?.(session, refusal);
    throw new HandlerError(ErrorCodes.InvalidParams, error.message, { path, roots: session.guard.roots, reason: error.reason });
  };

  const fail = (session: AgentSession, operation: 'read' | 'write', path: string, error: unknown): never => {
    if (error instanceof AccessDeniedError) return refuse(session, operation, path, error);
    if (error instanceof FileOperationError) {
      // Not an access problem: the agent asked for something that is not a text file there.
      throw new HandlerError(error.problem === 'not-found' ? ErrorCodes.ResourceNotFound : ErrorCodes.InvalidParams, error.message, { path });
    }
    throw error;
  };

  connection.onRequest(ReadTextFileMethod, async (params) => {
    const session = sessionFor(params.sessionId);
    try {
      return { content: await readTextFile(session.guard, params, options.documents) };
    } catch (error) {
      return fail(session, 'read', params.path, error);
    }
  });

  connection.onRequest(WriteTextFileMethod, async (params) => {
    const session = sessionFor(params.sessionId);
    try {
      await writeTextFile(session.guard, params, options.documents);
      return {};
    } catch (error) {
      return fail(session, 'write', params.path, error);
    }
  });
}
