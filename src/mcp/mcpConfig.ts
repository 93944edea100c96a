/**
 * The MCP servers this client passes to agents (session/new, load, resume, fork), read from two places:
 *
 * 1. the user's setting `acpWorkspace.mcpServers` (an array, this extension's own format);
 * 2. in a trusted workspace only, each workspace folder's `.vscode/mcp.json` (VS Code's own format, JSONC).
 *
 * Both are validated with zod. A bad entry is skipped with one readable problem (which setting entry or
 * file, which server, what is wrong); a file that cannot be read as JSONC is one problem. Nothing here
 * throws on bad input, and no problem text ever contains an env or header value.
 *
 * The result is the port's `McpServerConfig` shape (env and headers as `[{name, value}]`, stdio without `type`);
 * what a configured server is, the formats' zod schemas and the final checks are in configuredServer.ts;
 * which of them an agent actually gets is decided by `selectMcpServers` (mcpSelection.ts).
 */
import * as l10n from '@vscode/l10n';
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { envValue } from '../process/environment';
import { formatIssues } from '../common/zodIssues';
import {
  buildServer,
  type ConfiguredMcpServer,
  entryType,
  MCP_SERVERS_SETTING,
  McpJsonFile,
  mcpJsonPath,
  McpJsonRemote,
  McpJsonStdio,
  McpSettingRemote,
  McpSettingStdio,
  printable,
  type RemoteDraft,
  type StdioDraft,
} from './configuredServer';
import { parseEnvFile } from './envFile';
import { parseJsonc } from './jsonc';

// The server's shape, re-exported so that a reader of the configuration needs one import.
export {
  type ConfiguredMcpServer,
  describeMcpSource,
  isStdioServer,
  MCP_SERVERS_SETTING,
  mcpJsonPath,
  type McpSource,
  type McpTransport,
  transportOf,
} from './configuredServer';

export interface McpConfigResult {
  readonly servers: ConfiguredMcpServer[];
  /** One readable line per skipped entry, unreadable file or ignored part of a server. */
  readonly problems: string[];
}

/** The environment `${env:NAME}` reads (usually `process.env`). */
export type McpEnv = Readonly<Record<string, string | undefined>>;

// ---------------------------------------------------------------------------------------------------------
// Variables

/** The values `${…}` variables resolve to; `allowed` decides which variables a source may use. */
interface VariableContext {
  readonly env: McpEnv;
  /** Resolves a variable other than `${env:…}`; undefined: not available in this source. */
  readonly resolve: (name: string) => string | undefined;
  /** The variables this source supports, for messages. */
  readonly supported: string;
}

const VARIABLE = /\$\{([^{}]*)\}/g;

/** Collects the variables used in `texts`, or explains why the server cannot be used. */
function checkVariables(texts: readonly string[], context: VariableContext): { error?: string; unset: string[] } {
  const inputs = new Set<string>();
  const unknown = new Set<string>();
  const unset = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(VARIABLE)) {
      const name = match[1]!;
      if (name.startsWith('input:')) inputs.add(match[0]);
      else if (name.startsWith('env:')) {
        if (envValue(context.env, name.slice(4)) === undefined) unset.add(name.slice(4));
      } else if (context.resolve(name) === undefined) unknown.add(match[0]);
    }
  }
  if (inputs.size > 0) {
    return {
      error: l10n.t(
        "it uses {0}, which only VS Code's own prompt can fill in. Use {1} instead, or add the server to {2}.",
        [...inputs].join(', '),
        '${env:NAME}',
        MCP_SERVERS_SETTING,
      ),
      unset: [],
    };
  }
  if (unknown.size > 0) {
    return { error: l10n.t('{0} cannot be resolved here (supported: {1}).', [...unknown].join(', '), context.supported), unset: [] };
  }
  return { unset: [...unset] };
}

function expand(text: string, context: VariableContext): string {
  return text.replace(VARIABLE, (whole, name: string) => {
    if (name.startsWith('env:')) return envValue(context.env, name.slice(4)) ?? '';
    return context.resolve(name) ?? whole;
  });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// ---------------------------------------------------------------------------------------------------------
// Source 1: the setting

/**
 * Reads `acpWorkspace.mcpServers`. `${env:NAME}` expands in command, args, env values, url and header
 * values (an unset variable becomes empty, with a note); any other `${…}` makes the entry skipped.
 * A server without `type` but with a `url` is http.
 */
export function readSettingServers(value: unknown, env: McpEnv = process.env): McpConfigResult {
  const servers: ConfiguredMcpServer[] = [];
  const problems: string[] = [];
  if (value === undefined || value === null) return { servers, problems };
  if (!Array.isArray(value)) {
    problems.push(l10n.t('{0} must be a list of servers; it was ignored.', MCP_SERVERS_SETTING));
    return { servers, problems };
  }
  const context: VariableContext = { env, resolve: () => undefined, supported: '${env:NAME}' };
  value.forEach((entry: unknown, index) => {
    const named = isObject(entry) && typeof entry['name'] === 'string' && entry['name'].trim() !== '' ? ` ("${printable(entry['name'])}")` : '';
    const where = `${MCP_SERVERS_SETTING}[${index}]${named}`;
    const skip = (reason: string): void => {
      problems.push(`${where} was skipped: ${reason}`);
    };
    if (!isObject(entry)) return skip(l10n.t('each server must be an object with a name and a command (stdio) or a type and a url (http, sse).'));
    const type = entryType(entry);
    if (typeof type === 'object') return skip(type.error);
    let draft: StdioDraft | RemoteDraft;
    let texts: string[];
    if (type === 'stdio') {
      const parsed = McpSettingStdio.safeParse(entry);
      if (!parsed.success) return skip(formatIssues(parsed.error.issues));
      const { name, command, args, env: vars } = parsed.data;
      texts = [command, ...args, ...Object.values(vars)];
      draft = { name, command, args, env: new Map(Object.entries(vars)) };
    } else {
      const parsed = McpSettingRemote.safeParse({ ...entry, type });
      if (!parsed.success) return skip(formatIssues(parsed.error.issues));
      const { name, url, headers } = parsed.data;
      texts = [url, ...Object.values(headers)];
      draft = { name, type, url, headers: new Map(Object.entries(headers)) };
    }
    const variables = checkVariables(texts, context);
    if (variables.error !== undefined) return skip(variables.error);
    const built = buildServer(expandDraft(draft, context));
    if (typeof built === 'string') return skip(built);
    for (const name of variables.unset) problems.push(l10n.t('{0}: {1} is not set, so it was replaced by an empty text.', where, `\${env:${name}}`));
    servers.push({ source: { kind: 'setting', index }, server: built });
  });
  return { servers, problems };
}

function expandDraft(draft: StdioDraft | RemoteDraft, context: VariableContext): StdioDraft | RemoteDraft {
  const ex = (text: string) => expand(text, context);
  if ('command' in draft) {
    return { ...draft, command: ex(draft.command), args: draft.args.map(ex), env: new Map([...draft.env].map(([k, v]) => [k, ex(v)])) };
  }
  return { ...draft, url: ex(draft.url), headers: new Map([...draft.headers].map(([k, v]) => [k, ex(v)])) };
}

// ---------------------------------------------------------------------------------------------------------
// Source 2: .vscode/mcp.json

export interface McpJsonOptions {
  /** The file's path for sources and messages (default: `<folderPath>/.vscode/mcp.json`). */
  readonly filePath?: string;
  /** `${userHome}` (default: `os.homedir()`). */
  readonly userHome?: string;
  /** Reads an `envFile` (default: `fs.readFileSync(path, 'utf8')`). */
  readonly readFile?: (absolutePath: string) => string;
}

/**
 * Reads one workspace folder's `.vscode/mcp.json` text (JSONC). Variables: `${workspaceFolder}` (this
 * folder), `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}` / `${/}` and `${env:NAME}`;
 * a server using `${input:…}` (or any other variable) is skipped with the reason. `envFile` is read
 * (relative to the folder), `env` overrides it. Servers asking for VS Code's sandbox are skipped (the
 * agent would run them unconfined); `cwd` cannot be passed over ACP and is reported as ignored.
 */
export function parseMcpJson(text: string, folderPath: string, env: McpEnv, options: McpJsonOptions = {}): McpConfigResult {
  const filePath = options.filePath ?? mcpJsonPath(folderPath);
  const servers: ConfiguredMcpServer[] = [];
  const problems: string[] = [];
  if (text.trim() === '') return { servers, problems };
  const json = parseJsonc(text);
  if (!json.ok) {
    problems.push(l10n.t('{0} is not valid JSON ({1}); none of its servers were used.', filePath, json.error));
    return { servers, problems };
  }
  if (!isObject(json.value)) {
    problems.push(l10n.t('{0} must hold a JSON object with a "servers" object; none of its servers were used.', filePath));
    return { servers, problems };
  }
  const file = McpJsonFile.safeParse(json.value);
  if (!file.success) {
    problems.push(l10n.t('{0}: {1}; none of its servers were used.', filePath, formatIssues(file.error.issues)));
    return { servers, problems };
  }
  if (file.data.servers === undefined) {
    if ('mcpServers' in file.data)
      problems.push(l10n.t('{0}: VS Code\'s mcp.json lists servers under "servers", not "mcpServers"; none of its servers were used.', filePath));
    return { servers, problems };
  }
  const userHome = options.userHome ?? os.homedir();
  const builtIn: Record<string, string> = {
    workspaceFolder: folderPath,
    workspaceFolderBasename: path.basename(folderPath),
    userHome,
    pathSeparator: path.sep,
    '/': path.sep,
  };
  const context: VariableContext = {
    env,
    resolve: (name) => (Object.hasOwn(builtIn, name) ? builtIn[name] : undefined),
    supported: '${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${pathSeparator}, ${/}, ${env:NAME}',
  };
  const readFile = options.readFile ?? ((file: string) => readFileSync(file, 'utf8'));

  for (const [name, entry] of Object.entries(file.data.servers)) {
    const where = `${filePath}: server "${printable(name)}"`;
    const skip = (reason: string): void => {
      problems.push(`${where} was skipped: ${reason}`);
    };
    if (name.trim() === '') {
      skip(l10n.t('a server needs a non-empty name.'));
      continue;
    }
    if (!isObject(entry)) {
      skip(l10n.t('each server must be an object with a command (stdio) or a type and a url (http, sse).'));
      continue;
    }
    const type = entryType(entry);
    if (typeof type === 'object') {
      skip(type.error);
      continue;
    }
    const notes: string[] = [];
    let draft: StdioDraft | RemoteDraft;
    if (type === 'stdio') {
      const parsed = McpJsonStdio.safeParse(entry);
      if (!parsed.success) {
        skip(formatIssues(parsed.error.issues));
        continue;
      }
      const server = parsed.data;
      if (server.sandboxEnabled === true) {
        skip(l10n.t('it asks for VS Code\'s sandbox ("sandboxEnabled"), which an agent does not apply; it would run unconfined.'));
        continue;
      }
      const envTexts = Object.values(server.env).filter((v): v is string => typeof v === 'string');
      const texts = [
        server.command,
        ...server.args,
        ...envTexts,
        ...(server.envFile !== undefined ? [server.envFile] : []),
        ...(server.cwd !== undefined ? [server.cwd] : []),
      ];
      const variables = checkVariables(texts, context);
      if (variables.error !== undefined) {
        skip(variables.error);
        continue;
      }
      const vars = new Map<string, string>();
      if (server.envFile !== undefined) {
        const envFilePath = path.resolve(folderPath, expand(server.envFile, context));
        let content: string;
        try {
          content = readFile(envFilePath);
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          skip(
            typeof code === 'string'
              ? l10n.t('its envFile {0} could not be read ({1}).', envFilePath, code)
              : l10n.t('its envFile {0} could not be read.', envFilePath),
          );
          continue;
        }
        for (const [key, value] of parseEnvFile(content)) vars.set(key, value);
      }
      for (const [key, value] of Object.entries(server.env)) {
        if (value === null) {
          vars.delete(key);
          notes.push(l10n.t("env.{0} is null: VS Code removes it from the server's environment, which ACP cannot express; it was left out.", printable(key)));
        } else {
          vars.set(key, typeof value === 'number' ? String(value) : expand(value, context));
        }
      }
      if (server.cwd !== undefined) notes.push(l10n.t('"cwd" was ignored: ACP cannot pass a working directory for an MCP server (the agent chooses it).'));
      for (const unset of variables.unset) notes.push(l10n.t('{0} is not set, so it was replaced by an empty text.', `\${env:${unset}}`));
      draft = { name, command: expand(server.command, context), args: server.args.map((arg) => expand(arg, context)), env: vars };
    } else {
      const parsed = McpJsonRemote.safeParse(entry);
      if (!parsed.success) {
        skip(formatIssues(parsed.error.issues));
        continue;
      }
      const server = parsed.data;
      const variables = checkVariables([server.url, ...Object.values(server.headers)], context);
      if (variables.error !== undefined) {
        skip(variables.error);
        continue;
      }
      for (const unset of variables.unset) notes.push(l10n.t('{0} is not set, so it was replaced by an empty text.', `\${env:${unset}}`));
      draft = {
        name,
        type,
        url: expand(server.url, context),
        headers: new Map(Object.entries(server.headers).map(([key, value]) => [key, expand(value, context)])),
      };
    }
    const built = buildServer(draft);
    if (typeof built === 'string') {
      skip(built);
      continue;
    }
    for (const note of notes) problems.push(`${where}: ${note}`);
    servers.push({ source: { kind: 'file', path: filePath }, server: built });
  }
  return { servers, problems };
}

// ---------------------------------------------------------------------------------------------------------
// Both sources

/** One workspace folder's mcp.json: its text, or undefined when the folder has none. */
export interface McpJsonInput {
  readonly folderPath: string;
  readonly text: string | undefined;
  readonly filePath?: string;
}

export interface McpConfigInput {
  /** The value of `acpWorkspace.mcpServers`. */
  readonly setting: unknown;
  /** The workspace folders' mcp.json files, in folder order. */
  readonly files: readonly McpJsonInput[];
  /** Workspace Trust: the files are only read in a trusted workspace. */
  readonly trusted: boolean;
  readonly env: McpEnv;
  readonly options?: Omit<McpJsonOptions, 'filePath'>;
}

/** Every configured server: the setting's first, then each folder's mcp.json in folder order. */
export function readConfiguredServers(input: McpConfigInput): McpConfigResult {
  const fromSetting = readSettingServers(input.setting, input.env);
  const servers = [...fromSetting.servers];
  const problems = [...fromSetting.problems];
  const present = input.files.filter((file) => file.text !== undefined);
  if (!input.trusted) {
    if (present.length > 0)
      problems.push(
        l10n.t(
          'The workspace is not trusted, so its .vscode/mcp.json files were not read ({0}).',
          present.map((f) => f.filePath ?? mcpJsonPath(f.folderPath)).join(', '),
        ),
      );
    return { servers, problems };
  }
  for (const file of present) {
    const result = parseMcpJson(file.text!, file.folderPath, input.env, {
      ...input.options,
      ...(file.filePath !== undefined ? { filePath: file.filePath } : {}),
    });
    servers.push(...result.servers);
    problems.push(...result.problems);
  }
  return { servers, problems };
}
