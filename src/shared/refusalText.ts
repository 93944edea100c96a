/**
 * A refused request in words, for the chat and the notification alike. The client can only refuse what an
 * agent asks it to do (`fs/read_text_file`, `fs/write_text_file`, `terminal/create`): the words say which
 * request that was, and that an agent reading, writing or running commands with its own tools is not
 * confined by it (there is no sandbox yet), so a refusal never reads as "the file was not written".
 */

/** What was refused: the operation, the path (a terminal's folder) and, for a terminal, the command. */
export interface RefusedRequest {
  readonly operation: string;
  readonly path: string;
  readonly command?: string;
}

/** "ACP Workspace refused the agent’s request to write /x (fs/write_text_file)." */
export function refusedRequestText(refusal: RefusedRequest, agentName = 'the agent'): string {
  const { operation, path } = refusal;
  const [what, method] =
    operation === 'read'
      ? [`read ${path}`, 'fs/read_text_file']
      : operation === 'write'
        ? [`write ${path}`, 'fs/write_text_file']
        : operation === 'terminal'
          ? [`run ${refusal.command ?? 'a command'} in ${path}`, 'terminal/create']
          : [`${operation} ${path}`, operation];
  return `ACP Workspace refused ${agentName}’s request to ${what} (${method}).`;
}

/** What the refusal does not cover: the agent's own tools. */
export function refusalScopeText(operation: string): string {
  switch (operation) {
    case 'read':
      return 'Only reads through ACP Workspace are checked: an agent that reads files with its own tools is not confined by this (there is no sandbox yet).';
    case 'write':
      return 'Only writes through ACP Workspace are checked: an agent that writes files with its own tools is not confined by this, and may have written the file anyway (there is no sandbox yet).';
    case 'terminal':
      return 'Only commands run through ACP Workspace are checked: an agent that runs commands with its own tools is not confined by this (there is no sandbox yet).';
    default:
      return 'Only requests to ACP Workspace are checked: an agent with its own tools is not confined by this (there is no sandbox yet).';
  }
}
