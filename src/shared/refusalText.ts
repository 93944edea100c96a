/**
 * A refused request in words, for the chat and the notification alike. The client can only refuse what an
 * agent asks it to do (`fs/read_text_file`, `fs/write_text_file`, `terminal/create`): the words say which
 * request that was, and that an agent reading, writing or running commands with its own tools is not
 * confined by it (there is no sandbox yet), so a refusal never reads as "the file was not written".
 */

/** What was refused: the operation, the path (a terminal's folder) and, for a terminal, the command. */
import * as l10n from '@vscode/l10n';
export interface RefusedRequest {
  readonly operation: string;
  readonly path: string;
  readonly command?: string;
}

/** "ACP Workspace refused the agent’s request to write /x (fs/write_text_file)." */
export function refusedRequestText(refusal: RefusedRequest, agentName = l10n.t('the agent')): string {
  const { operation, path } = refusal;
  switch (operation) {
    case 'read':
      return l10n.t('ACP Workspace refused {0}’s request to read {1} ({2}).', agentName, path, 'fs/read_text_file');
    case 'write':
      return l10n.t('ACP Workspace refused {0}’s request to write {1} ({2}).', agentName, path, 'fs/write_text_file');
    case 'terminal':
      return refusal.command === undefined
        ? l10n.t('ACP Workspace refused {0}’s request to run a command in {1} ({2}).', agentName, path, 'terminal/create')
        : l10n.t('ACP Workspace refused {0}’s request to run {1} in {2} ({3}).', agentName, refusal.command, path, 'terminal/create');
    default:
      return l10n.t('ACP Workspace refused {0}’s request to {1} {2} ({1}).', agentName, operation, path);
  }
}

/**
 * What happened to a refused write whose file is on disk all the same: "The agent wrote /x with its own tools:
 * ACP Workspace refused its request to write it (fs/write_text_file), which did not stop it."
 */
export function writtenAnywayText(refusal: RefusedRequest, agentName = l10n.t('The agent')): string {
  return l10n.t(
    '{0} wrote {1} with its own tools: ACP Workspace refused its request to write it ({2}), which did not stop it.',
    agentName,
    refusal.path,
    'fs/write_text_file',
  );
}

/** What the refusal does not cover: the agent's own tools. */
export function refusalScopeText(operation: string): string {
  switch (operation) {
    case 'read':
      return l10n.t(
        'Only reads through ACP Workspace are checked: an agent that reads files with its own tools is not confined by this (there is no sandbox yet).',
      );
    case 'write':
      return l10n.t(
        'Only writes through ACP Workspace are checked: an agent that writes files with its own tools is not confined by this, and may have written the file anyway (there is no sandbox yet).',
      );
    case 'terminal':
      return l10n.t(
        'Only commands run through ACP Workspace are checked: an agent that runs commands with its own tools is not confined by this (there is no sandbox yet).',
      );
    default:
      return l10n.t('Only requests to ACP Workspace are checked: an agent with its own tools is not confined by this (there is no sandbox yet).');
  }
}
