/**
 * The working directory of a terminal command: the session's cwd when the agent gives none, otherwise the
 * agent's `cwd` as the {@link RootGuard} resolves it (absolute, inside the session's roots, symlinks
 * followed), which must be an existing folder. The command runs in the resolved real path, never in the
 * agent's string.
 */
import * as l10n from '@vscode/l10n';
import * as fs from 'node:fs';
import { type RootGuard, quotePath } from '../roots/rootGuard';
import { TerminalCwdRefusedError, TerminalError, TerminalErrorCodes } from './terminalError';

/**
 * @param requested the agent's `cwd` (`null`/absent: the session's cwd).
 * @param sessionCwd the session's working directory (a root, already chosen by the user).
 * @throws TerminalCwdRefusedError -32602 naming the cwd and the session's roots when the guard refuses it;
 *   TerminalError -32602 when it is not an existing folder.
 */
export async function resolveTerminalCwd(requested: string | null | undefined, guard: RootGuard, sessionCwd: string): Promise<string> {
  if (requested === undefined || requested === null) {
    if (!(await isDirectory(sessionCwd))) {
      throw new TerminalError(
        TerminalErrorCodes.InvalidParams,
        l10n.t("Cannot run a command: the session's folder {0} is not an existing folder.", quotePath(sessionCwd)),
        {
          cwd: sessionCwd,
          roots: guard.roots,
          reason: 'missing',
        },
      );
    }
    return sessionCwd;
  }
  const decision = await guard.check(requested);
  if (!decision.allowed) {
    // The guard's words name the path; for "outside" they already list the roots.
    const { message, reason } = refusal(decision.message, decision.reason === 'outside-roots' ? undefined : guard.roots);
    throw new TerminalCwdRefusedError(message, { cwd: requested, roots: guard.roots, reason: decision.reason }, reason);
  }
  if (!decision.exists || !(await isDirectory(decision.realPath))) {
    const message = decision.exists
      ? l10n.t('Refused terminal cwd: {0} is not a folder.', quotePath(requested))
      : l10n.t('Refused terminal cwd: {0} does not exist.', quotePath(requested));
    throw new TerminalError(TerminalErrorCodes.InvalidParams, message, {
      cwd: requested,
      roots: guard.roots,
      reason: decision.exists ? 'not-a-directory' : 'missing',
    });
  }
  return decision.realPath;
}

/**
 * The error's message and the reason alone (for the chat), each a whole sentence: the guard's words, and where
 * commands can run when they do not say it (`roots` given).
 */
function refusal(guardWords: string, roots: readonly string[] | undefined): { message: string; reason: string } {
  if (roots === undefined) return { message: l10n.t('Refused terminal cwd: {0}.', guardWords), reason: l10n.t('{0}.', guardWords) };
  if (roots.length === 0) {
    return {
      message: l10n.t("Refused terminal cwd: {0}. Commands can only run inside this session's folders (it has none).", guardWords),
      reason: l10n.t("{0}. Commands can only run inside this session's folders (it has none).", guardWords),
    };
  }
  return {
    message: l10n.t("Refused terminal cwd: {0}. Commands can only run inside this session's folders ({1}).", guardWords, roots.join(', ')),
    reason: l10n.t("{0}. Commands can only run inside this session's folders ({1}).", guardWords, roots.join(', ')),
  };
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.promises.stat(p)).isDirectory();
  } catch {
    return false;
  }
}
