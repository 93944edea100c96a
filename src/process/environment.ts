/**
 * The environment of a process the extension starts (an agent, a terminal command): the extension host's,
 * with configured entries over it and some inherited ones removed. On Windows variable names are case-insensitive, so an entry replaces an inherited variable spelled
 * differently (`PATH` over `Path`) instead of sitting next to it.
 */

/** One `env` entry of `terminal/create`. */
export interface EnvEntry {
  readonly name: string;
  readonly value: string;
}

/** `base` with `entries` applied in order (a later entry wins). */
export function mergeEnv(base: NodeJS.ProcessEnv, entries: readonly EnvEntry[], platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const { name, value } of entries) {
    if (platform === 'win32') {
      const folded = name.toUpperCase();
      for (const key of Object.keys(env)) if (key !== name && key.toUpperCase() === folded) delete env[key];
    }
    env[name] = value;
  }
  return env;
}

/** `env` without the variables `names` (any spelling on Windows). */
export function withoutEnv(env: NodeJS.ProcessEnv, names: readonly string[], platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  if (names.length === 0) return env;
  const result: NodeJS.ProcessEnv = { ...env };
  const folded = new Set(names.map((name) => (platform === 'win32' ? name.toUpperCase() : name)));
  for (const key of Object.keys(result)) if (folded.has(platform === 'win32' ? key.toUpperCase() : key)) delete result[key];
  return result;
}

/** The value of variable `name` (case-insensitively on Windows). */
export function envValue(env: Readonly<Record<string, string | undefined>>, name: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'win32') return env[name];
  const folded = name.toUpperCase();
  const key = Object.keys(env).find((k) => k.toUpperCase() === folded);
  return key === undefined ? undefined : env[key];
}
