/**
 * What a registry entry may put on an `npx` or `uvx` command line and in an agent's environment. The command line
 * is `npx --yes <package> …args`, `npx --yes --package <package> <cmd> …args`, `uvx <package> …args` or
 * `uvx --from <package> <cmd> …args`: both tools read options until their first positional argument (npx's
 * `npx-cli.js` puts `--` there; uv's parser takes the rest as the command's), so the package (without `cmd`) or
 * the `cmd` is where an entry could slip in an option of the tool itself (`-c <command>` makes npx run a shell
 * command) and everything after it reaches the package's program as it is. Hence:
 * - a package is a name of its index with an exact version (`name@1.2.3`; `name==1.2.3` or `name@1.2.3` for
 *   uvx): never a git, GitHub, file, URL or path spec (code from outside the index), never a range or a tag
 *   (whatever is newest when the agent starts), never starting with `-`;
 * - a `cmd` is the name of one of the package's commands: no leading `-`, no path, no space;
 * - the environment sets nothing that configures the package manager (`npm_config_*`, `UV_*`, `PIP_*`), makes
 *   git run a command (`GIT_SSH_COMMAND`, `GIT_CONFIG_*`…), routes traffic through a proxy or changes which TLS
 *   certificates are trusted; loader variables (`LD_PRELOAD`, `NODE_OPTIONS`…) were refused already.
 * Such an entry is refused with the reason, which the Add Agent gallery shows; a user who wants it anyway writes
 * the command line into `acpWorkspace.agents` (machine scope), a decision of theirs, not of a registry document.
 * Pure functions: the words are for zod's issues (see schema.ts) and for installed.json's records.
 */
import * as l10n from '@vscode/l10n';

/** Which tool runs the package. */
export type PackageTool = 'npx' | 'uvx';

/** npm's longest package name. */
const MAX_NPM_NAME = 214;
/** npm's rule for new names (validate-npm-package-name), without a leading "-". */
const NPM_NAME = /^(?:@[a-z0-9~][a-z0-9._~-]*\/)?[a-z0-9~][a-z0-9._~-]*$/;
/** An exact semver version (no `v`, no range, no tag). */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
/** A PEP 508 name with optional extras, then what follows it. */
const PYPI_NAME = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(\[[A-Za-z0-9._-]+(?:,[A-Za-z0-9._-]+)*\])?(.*)$/s;
/** An exact PEP 440 version (public, with an optional local part). */
const PEP440 =
  /^(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?(?:[-_.]?(?:post|rev|r)[-_.]?[0-9]*|-[0-9]+)?(?:[-_.]?dev[-_.]?[0-9]*)?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?$/i;
/** A version specifier that is not an exact pin (a range, a wildcard, arbitrary equality). */
const PYPI_LOOSE = /^(?:===|~=|!=|<=|>=|<|>|==)[0-9A-Za-z.*+!_-]+(?:,(?:===|~=|!=|<=|>=|<|>|==)[0-9A-Za-z.*+!_-]+)*$/;
/** Specs that fetch code from somewhere else than the index: git, hosted git, files, URLs, paths. */
const OUTSIDE = /^(?:git\+|git:|github:|gitlab:|bitbucket:|gist:|file:|link:|workspace:|https?:|hg\+|svn\+|bzr\+|\.|\/|~)/i;
/** A command of the package: a plain name. */
const COMMAND = /^[A-Za-z0-9_][A-Za-z0-9._+-]*$/;

/** Why `spec` is not a package `tool` may run, in words; undefined when it is one. */
export function packageProblem(tool: PackageTool, spec: string): string | undefined {
  if (spec.startsWith('-')) {
    return tool === 'npx'
      ? l10n.t('"{0}" starts with "-": npx would read it as one of its own options ("-c" runs a shell command), not as the package', spec)
      : l10n.t('"{0}" starts with "-": uvx would read it as one of its own options, not as the package', spec);
  }
  if (OUTSIDE.test(spec) || spec.includes('://') || spec.includes('\\')) return outside(tool, spec);
  return tool === 'npx' ? npmProblem(spec) : pypiProblem(spec);
}

/** Why `cmd` is not a command of the package `tool` may run, in words; undefined when it is one. */
export function commandProblem(tool: PackageTool, cmd: string): string | undefined {
  if (cmd.startsWith('-')) {
    return tool === 'npx'
      ? l10n.t('"{0}" starts with "-": npx would read it as one of its own options ("-c" runs a shell command), not as the package\'s command', cmd)
      : l10n.t('"{0}" starts with "-": uvx would read it as one of its own options, not as the package\'s command', cmd);
  }
  if (cmd.length > MAX_NPM_NAME || !COMMAND.test(cmd)) {
    return l10n.t('"{0}" is not the name of a command of the package (letters, digits, ".", "_", "+" and "-"; no path, no space)', cmd);
  }
  return undefined;
}

/** The kinds of variable a registry entry may not set, each with why. */
const REFUSED_VARIABLES: readonly { readonly pattern: RegExp; readonly why: () => string }[] = [
  {
    pattern: /^(?:npm_config_.+|UV_(?!THREADPOOL_SIZE$|USE_IO_URING$).+|PIP_.+)$/i,
    why: () => l10n.t('configures the package manager (where packages come from, which shell runs scripts)'),
  },
  {
    pattern:
      /^(?:NODE_EXTRA_CA_CERTS|NODE_TLS_REJECT_UNAUTHORIZED|NODE_USE_SYSTEM_CA|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|GIT_SSL_NO_VERIFY|GIT_SSL_CAINFO|GIT_SSL_CAPATH)$/i,
    why: () => l10n.t('changes which TLS certificates are trusted'),
  },
  {
    pattern:
      /^(?:GIT_SSH|GIT_SSH_COMMAND|GIT_SSH_VARIANT|GIT_PROXY_COMMAND|GIT_ASKPASS|SSH_ASKPASS|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|GIT_EXTERNAL_DIFF|GIT_PAGER|GIT_EDITOR|GIT_CONFIG|GIT_CONFIG_.+|GIT_DIR|GIT_WORK_TREE)$/i,
    why: () => l10n.t('makes git run a command or read other configuration'),
  },
  {
    pattern: /^(?:HTTPS?_PROXY|ALL_PROXY|FTP_PROXY|NO_PROXY|GLOBAL_AGENT_.+)$/i,
    why: () => l10n.t("sends the agent's network traffic, and the keys in it, through another server"),
  },
];

/**
 * The variables of `env` a registry entry may not set, one line per kind ("sets A, B, which …"); empty when it
 * sets none.
 */
export function refusedVariables(env: Readonly<Record<string, string>>): string[] {
  const names = Object.keys(env);
  const lines: string[] = [];
  const taken = new Set<string>();
  for (const { pattern, why } of REFUSED_VARIABLES) {
    const hit = names.filter((name) => !taken.has(name) && pattern.test(name));
    if (hit.length === 0) continue;
    for (const name of hit) taken.add(name);
    lines.push(l10n.t('sets {0}, which {1}: not accepted from a registry', hit.join(', '), why()));
  }
  return lines;
}

/**
 * Why an installed record's command line is not one this extension would have written for a valid entry (an
 * installed.json from before these rules, or edited by hand), in words; undefined when it is fine.
 */
export function installedCommandProblem(tool: PackageTool, args: readonly string[]): string | undefined {
  // npx: --yes <package> …  |  --yes --package <package> <cmd> …;  uvx: <package> …  |  --from <package> <cmd> …
  const rest = tool === 'npx' ? (args[0] === '--yes' ? args.slice(1) : undefined) : args;
  if (rest === undefined) return l10n.t('its command line does not start with "--yes"');
  const flag = tool === 'npx' ? '--package' : '--from';
  if (rest[0] === flag) {
    const [, spec, cmd] = rest;
    if (spec === undefined || cmd === undefined) return l10n.t('its command line names no command after {0}', flag);
    return packageProblem(tool, spec) ?? commandProblem(tool, cmd);
  }
  if (rest[0] === undefined) return l10n.t('its command line names no package');
  return packageProblem(tool, rest[0]);
}

function outside(tool: PackageTool, spec: string): string {
  return tool === 'npx'
    ? l10n.t('"{0}" is a git, GitHub, file, URL or path spec: npx would install code from outside the npm registry', spec)
    : l10n.t('"{0}" is a git, GitHub, file, URL or path spec: uvx would install code from outside PyPI', spec);
}

function npmProblem(spec: string): string | undefined {
  const at = spec.indexOf('@', 1);
  const name = at === -1 ? spec : spec.slice(0, at);
  const version = at === -1 ? undefined : spec.slice(at + 1);
  if (name.length > MAX_NPM_NAME || !NPM_NAME.test(name)) {
    return l10n.t(
      '"{0}" is not a valid npm package name (lower-case letters, digits, "-", ".", "_" and "~", not starting with "-", "." or "_", at most 214 characters)',
      spec,
    );
  }
  // A version that is itself a spec (`name@github:x/y`, `name@file:../x`); an alias (`npm:other@1`) is only not exact.
  if (version !== undefined && !version.startsWith('npm:') && (/^[a-z][a-z0-9+.-]*:/i.test(version) || version.includes('/'))) return outside('npx', spec);
  if (version === undefined || !SEMVER.test(version)) {
    return l10n.t('"{0}" names no exact version (name@1.2.3): npx would run whatever version is newest when the agent starts', spec);
  }
  return undefined;
}

function pypiProblem(spec: string): string | undefined {
  const parts = PYPI_NAME.exec(spec);
  const invalid = () => l10n.t('"{0}" is not a valid PyPI package with a version (name==1.2.3 or name@1.2.3)', spec);
  if (!parts) return invalid();
  const rest = parts[3]!;
  if (/^(?:==|@)/.test(rest) && PEP440.test(rest.replace(/^(?:==|@)/, ''))) return undefined;
  if (rest === '' || PYPI_LOOSE.test(rest) || /^@[0-9A-Za-z.*+!_-]+$/.test(rest)) {
    return l10n.t('"{0}" names no exact version (name==1.2.3): uvx would run whatever version is newest when the agent starts', spec);
  }
  return invalid();
}
