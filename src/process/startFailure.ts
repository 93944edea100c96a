/**
 * Why an agent failed to start (or to start a session), in words a user can act on: what failed, the agent's
 * own last stderr lines and the details of its error, the likely cause and the next step, and which actions
 * apply. Plain Node: the VS Code layer and the chat render what this returns.
 */
import * as l10n from '@vscode/l10n';
import { AgentRequestError, AuthRequiredError, ConnectionClosedError, ErrorCodes } from '../acp/errors';
import { redactSecrets } from '../common/redact';
import { errorMessage } from '../common/errors';

/** How an agent that runs elsewhere failed to connect (see {@link AgentStartError.remote}). */
export interface RemoteStartFailure {
  /** Its server refused the token (or headers) the client sent: setting them is the next step, not a sign-in. */
  readonly credentialsRefused: boolean;
}

/** Thrown when an agent process could not start; carries its name and its last stderr lines. */
export class AgentStartError extends Error {
  override name = 'AgentStartError';
  constructor(
    readonly agent: string,
    message: string,
    readonly stderr: readonly string[] = [],
    /** Set when the agent runs elsewhere (a remote agent that could not connect): it has no stderr here. */
    readonly remote?: RemoteStartFailure,
    /** False when the agent never ran (its start was refused, its program not found or not spawned). */
    readonly started = true,
  ) {
    super(message);
  }
}

export type FailureCause = 'auth' | 'network' | 'node' | 'notFound' | 'readOnly' | 'root' | 'unknown';

/**
 * What the user can do about it (the VS Code layer turns each into a button). `setToken` is for a remote agent
 * whose server refused its credentials ("Set Remote Agent Token…"); `signIn` is the agent's own sign-in.
 */
export type FailureAction = 'signIn' | 'setToken' | 'showLog' | 'restart' | 'openSettings';

export interface StartFailure {
  readonly agent: string;
  readonly cause: FailureCause;
  /** What failed, as the error said it (one sentence or a few). */
  readonly summary: string;
  /** The agent's own words: its last stderr lines (a few, redacted) and its error's details. */
  readonly agentWords: readonly string[];
  /** The likely cause and the next step, in one or two sentences; absent when nothing is known. */
  readonly advice: string | undefined;
  readonly actions: readonly FailureAction[];
}

export interface StartFailureInput {
  readonly agent: string;
  readonly error: unknown;
  /** The agent's recent stderr lines (already bounded and redacted, see StderrTail). */
  readonly stderr: readonly string[];
  /** The command that runs the agent (e.g. `npx`), to say which program was not found or which Node runs it. */
  readonly command?: string;
  /**
   * The agent runs elsewhere (a remote entry): it has no stderr and no command here, and a refused token is set
   * with Set Token…, not signed in. An {@link AgentStartError} of a remote agent says so itself.
   */
  readonly remote?: boolean;
}

/** Lines of the agent's words shown to the user (the log gets all the tail). */
export const SHOWN_LINES = 6;
/** Characters of the error's data shown. */
const DATA_CHARS = 600;

const AUTH =
  /\b(401|403)\b|unauthori[sz]ed|not (signed|logged) in|\blog ?in\b|\/login|sign ?in|api[ _-]?key|authenticat|credential|oauth|forbidden|invalid x-api-key/i;
const NETWORK =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|ENETUNREACH|EHOSTUNREACH|fetch failed|socket hang up|getaddrinfo|network|proxy|self[- ]signed certificate|unable to (get|verify) (local )?(issuer )?certificate|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_|timed? ?out/i;
const NODE =
  /SyntaxError|Unexpected token|requires? Node|Node\.?js (version|v?\d+)|unsupported engine|EBADENGINE|engines?\b.*node|is not a function.*(structuredClone|fetch)|ERR_REQUIRE_ESM|ERR_UNKNOWN_FILE_EXTENSION|ERR_UNSUPPORTED_DIR_IMPORT|ERR_MODULE_NOT_FOUND/i;
/** A write refused by a read-only file system: what a confined agent meets outside what it may write. */
const READ_ONLY = /\bEROFS\b|read-only file system/i;
/**
 * Claude Code's refusal to skip its permission checks as root (`--dangerously-skip-permissions cannot be used with
 * root/sudo privileges for security reasons`): what claude-agent-acp meets when VS Code runs as root. Claude Code lets
 * it be only when `IS_SANDBOX` is `1` (its own check, read in its binary).
 */
const ROOT_REFUSED = /dangerously-skip-permissions cannot be used with root|cannot be used with root\/sudo privileges/i;
/**
 * A debug or trace line (`[DEBUG] …`, `DEBUG: …`, after a timestamp or not): noise for the user, and no evidence of a
 * cause (Claude Code's debug log names every missing optional folder with ENOENT). The log keeps them.
 */
const DEBUG_LINE = /^\s*(?:\[?\d{4}-\d\d-\d\d[T ][^\s\]]*\]?\s+)?(?:\[(?:DEBUG|TRACE|VERBOSE)\]|(?:DEBUG|TRACE|VERBOSE):)/i;
const NOT_FOUND =
  /ENOENT|command not found|command "[^"]*" was not found|not found on PATH|No such file or directory|is not recognized as an internal or external command|could not determine executable|404 Not Found.*registry|E404/i;

/** The likely cause, the next step, and the actions, from everything known about the failure. */
export function describeStartFailure(input: StartFailureInput): StartFailure {
  const { agent, error, command } = input;
  const summary = error instanceof ConnectionClosedError ? error.message : errorMessage(error);
  const data = error instanceof AgentRequestError ? dataText(error.data) : undefined;
  const stderr = input.stderr.filter((line) => !DEBUG_LINE.test(line));
  const agentWords = [...stderr.slice(-SHOWN_LINES)];
  if (data && !summary.includes(data) && !agentWords.some((line) => line.includes(data))) agentWords.push(data);
  const evidence = [...stderr, data ?? '', error instanceof AgentRequestError ? error.agentMessage : summary].join('\n');
  const remote = input.remote === true || (error instanceof AgentStartError && error.remote !== undefined);
  if (remote) return describeRemoteFailure(agent, error, summary, agentWords, evidence);
  const cause = causeOf(error, evidence);
  const program = command ? `\`${command}\`` : l10n.t('its command');
  // An agent that never ran wrote nothing anywhere: saying so would suggest it ran and kept quiet.
  const neverStarted = error instanceof AgentStartError && !error.started;
  const words = stderr.length === 0 && !neverStarted ? l10n.t('{0} wrote nothing to stderr; the log has everything else it did.', agent) : '';
  let advice: string | undefined;
  const actions: FailureAction[] = [];
  switch (cause) {
    case 'root':
      // The cause is known and said: no guess at signing in, the network or Node.
      advice = l10n.t(
        "Claude Code refuses to run as root with its permission checks skipped (`--dangerously-skip-permissions`). Run VS Code as a regular user; or, only in a container or sandbox made for it, set IS_SANDBOX=1 in {0}'s env in acpWorkspace.agents, then restart {0}.",
        agent,
      );
      actions.push('openSettings', 'showLog');
      break;
    case 'auth':
      advice = l10n.t('{0} needs you to sign in (or an API key in its environment). Sign in, then start the session again.', agent);
      actions.push('signIn', 'showLog');
      break;
    case 'network':
      advice = l10n.t(
        "{0} could not reach its service. Check the network connection, or the proxy (HTTPS_PROXY in the agent's env in acpWorkspace.agents), then restart the agent.",
        agent,
      );
      actions.push('restart', 'showLog', 'openSettings');
      break;
    case 'node':
      advice = l10n.t(
        "{0} seems to need a newer Node.js than the one that runs it (the `node` found on the PATH of {1}; this window's extension host runs Node {2}). Install a newer Node.js, or point the agent's command (or PATH in its env) in acpWorkspace.agents at one.",
        agent,
        program,
        process.versions.node,
      );
      actions.push('openSettings', 'showLog', 'restart');
      break;
    case 'notFound':
      advice = l10n.t('{0} was not found. Install {1} (or Node.js, for npx), or set its command in acpWorkspace.agents to the full path.', program, agent);
      actions.push('openSettings', 'showLog');
      break;
    case 'readOnly': {
      const where = readOnlyPath(evidence);
      advice = where
        ? l10n.t(
            '{0} could not write {1}: that place is read-only for it. When acpWorkspace.sandbox confines an agent, it may write only its folders, its own state folders and the paths in writablePaths of its entry in acpWorkspace.agents: add {1} (or the folder it belongs in) there, then restart {0}.',
            agent,
            where,
          )
        : l10n.t(
            '{0} could not write a file it needs: that place is read-only for it. When acpWorkspace.sandbox confines an agent, it may write only its folders, its own state folders and the paths in writablePaths of its entry in acpWorkspace.agents: add the path its log names there, then restart {0}.',
            agent,
          );
      actions.push('openSettings', 'showLog', 'restart');
      break;
    }
    case 'unknown':
      advice = helperExit(evidence)
        ? [
            l10n.t(
              "A program {0} starts exited at once, without saying why. Common causes: not signed in (sign in with the agent's own login, e.g. `claude /login`, or set its API key in its env), no network or a proxy, or an old Node.js.",
              agent,
            ),
            words,
          ]
            .filter(Boolean)
            .join(' ')
        : words || undefined;
      actions.push('showLog', 'restart', 'openSettings');
      if (helperExit(evidence)) actions.unshift('signIn');
  }
  return { agent, cause, summary, agentWords, advice, actions };
}

/**
 * A remote agent's failure: its server refused the token (Set Token…), could not be reached, or the agent answered
 * with an error. Nothing about stderr, its command or this machine's Node: it runs elsewhere.
 */
function describeRemoteFailure(agent: string, error: unknown, summary: string, agentWords: readonly string[], evidence: string): StartFailure {
  const refused =
    error instanceof AgentStartError && error.remote !== undefined
      ? error.remote.credentialsRefused
      : !(error instanceof AuthRequiredError) && !(error instanceof AgentRequestError) && /\b(401|403)\b|refused the credentials/.test(evidence);
  if (refused) {
    return {
      agent,
      cause: 'auth',
      summary,
      agentWords,
      advice: l10n.t('Its server refused the token: set it with Set Token…, and {0} connects again with it.', agent),
      actions: ['setToken', 'showLog'],
    };
  }
  // The agent's own authentication (ACP auth_required) is its sign-in, wherever it runs.
  if (error instanceof AuthRequiredError || (error instanceof AgentRequestError && error.code === ErrorCodes.AuthRequired)) {
    return {
      agent,
      cause: 'auth',
      summary,
      agentWords,
      advice: l10n.t('{0} needs you to sign in. Sign in, then start the session again.', agent),
      actions: ['signIn', 'showLog'],
    };
  }
  const network = error instanceof AgentStartError && NETWORK.test(evidence);
  return {
    agent,
    cause: network ? 'network' : 'unknown',
    summary,
    agentWords,
    advice: network
      ? l10n.t('Check that its server runs and that the address in its entry in acpWorkspace.agents is right, then restart {0}.', agent)
      : undefined,
    actions: ['restart', 'showLog', 'openSettings'],
  };
}

/** One paragraph: what failed, the agent's last `lines` lines of words, the advice. For notifications and the log. */
export function startFailureText(failure: StartFailure, lines = SHOWN_LINES): string {
  const parts = [sentence(failure.summary)];
  const words = failure.agentWords.slice(-lines);
  if (words.length > 0) parts.push(`${failure.agent} said: ${words.map((line) => line.trim()).join(' ⏎ ')}`);
  if (failure.advice) parts.push(failure.advice);
  return parts.join(' ');
}

function causeOf(error: unknown, evidence: string): FailureCause {
  if (ROOT_REFUSED.test(evidence)) return 'root';
  if (error instanceof AuthRequiredError || (error instanceof AgentRequestError && error.code === ErrorCodes.AuthRequired)) return 'auth';
  if (/\bENOENT\b/.test(evidence) && /spawn|not found|executable/i.test(evidence)) return 'notFound';
  if (READ_ONLY.test(evidence)) return 'readOnly';
  if (NODE.test(evidence)) return 'node';
  if (NETWORK.test(evidence)) return 'network';
  if (AUTH.test(evidence)) return 'auth';
  if (NOT_FOUND.test(evidence)) return 'notFound';
  return 'unknown';
}

/**
 * The path a read-only file system refused, as Node and Bun (`EROFS: read-only file system, mkdir '/x'`) or a
 * shell (`cannot create '/x': Read-only file system`) say it.
 */
function readOnlyPath(evidence: string): string | undefined {
  for (const line of evidence.split('\n')) {
    if (!READ_ONLY.test(line)) continue;
    const quoted = /['"‘`](\/[^'"’`\n]*)['"’`]/.exec(line)?.[1];
    if (quoted) return quoted;
    const bare = /(?:^|\s)(\/\S+?):?\s+read-only file system/i.exec(line)?.[1];
    if (bare) return bare;
  }
  return undefined;
}

/** "Claude Code process exited with code 1": the agent's own helper died and its words were not passed on. */
function helperExit(evidence: string): boolean {
  return /process exited with code \d+|process terminated by signal/i.test(evidence);
}

/** The error's `data` as bounded text: `details` or `message` when that is all, else compact JSON. */
function dataText(data: unknown): string | undefined {
  if (data === undefined || data === null) return undefined;
  let text: string;
  if (typeof data === 'string') text = data;
  else if (typeof data === 'object' && Object.keys(data).length === 1 && typeof (data as { details?: unknown }).details === 'string')
    text = (data as { details: string }).details;
  else if (typeof data === 'object' && Object.keys(data).length === 1 && typeof (data as { message?: unknown }).message === 'string')
    text = (data as { message: string }).message;
  else {
    try {
      text = JSON.stringify(data) ?? '';
    } catch {
      return undefined;
    }
  }
  text = redactSecrets(text.trim());
  if (text === '' || text === '{}') return undefined;
  return text.length > DATA_CHARS ? `${text.slice(0, DATA_CHARS)}…` : text;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
