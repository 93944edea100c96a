/**
 * What the package promises about the Node it runs on (`engines.node`, the README's "Node 20") holds for what it
 * ships: every runtime dependency in the lock file admits the oldest Node we claim (issue 25: eventsource-parser
 * 4.x wants Node >= 22.12, and `npm ci` warned about it on Node 20).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const repository = path.resolve(__dirname, '..', '..', '..');
const read = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(repository, file), 'utf8'));

type Version = readonly [number, number, number];

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** `20`, `20.19`, `v20.19.0`, `20.x` as a version and how many of its parts were given. */
function partial(text: string): { version: Version; parts: number } {
  const parts = text
    .replace(/^v/, '')
    .split('.')
    .filter((p) => p !== '' && p !== 'x' && p !== '*');
  assert.ok(
    parts.every((p) => /^\d+$/.test(p)),
    `a version: ${text}`,
  );
  const [major = 0, minor = 0, patch = 0] = parts.map(Number);
  return { version: [major, minor, patch], parts: parts.length };
}

/** Whether `version` satisfies one comparator of a node-semver range (the forms package.json engines use). */
function satisfiesComparator(version: Version, comparator: string): boolean {
  const match = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(comparator)!;
  const operator = match[1] ?? '';
  const { version: bound, parts } = partial(match[2]!);
  const c = compare(version, bound);
  switch (operator) {
    case '>=':
      return c >= 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    case '<':
      return c < 0;
    case '^':
      return c >= 0 && version[0] === bound[0];
    case '~':
      return c >= 0 && version[0] === bound[0] && (parts < 2 || version[1] === bound[1]);
    default:
      // A bare or `=` version: the parts given must match (`14` is any 14.x.y).
      return version.slice(0, parts).every((v, i) => v === bound[i]);
  }
}

export function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((set) => {
    const comparators = set
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    return comparators.length === 0 || comparators.every((c) => satisfiesComparator(version, c));
  });
}

describe('the Node we claim', () => {
  const manifest = read('package.json') as { engines: { node: string } };
  const lock = read('package-lock.json') as { packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[] }> };
  const claimed = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(manifest.engines.node);

  it('is a lower bound', () => {
    assert.ok(claimed, `engines.node is ">=<version>": ${manifest.engines.node}`);
  });

  /** The packages of the lock file (shipped or only for development) whose engines.node refuses the oldest Node we claim. */
  function refusing(dev: boolean): string[] {
    const oldest = partial(claimed![1]!).version;
    return Object.entries(lock.packages).flatMap(([name, entry]) => {
      if (name === '' || Boolean(entry.dev) !== dev) return [];
      const range = !entry.engines || Array.isArray(entry.engines) ? undefined : entry.engines.node;
      return range && !satisfies(oldest, range) ? [`${name.replace(/^node_modules\//, '')}@${entry.version}: engines.node ${range}`] : [];
    });
  }

  it('is admitted by every dependency the extension ships', () => {
    assert.deepEqual(refusing(false), [], `shipped dependencies that do not run on the Node of engines.node ${manifest.engines.node}`);
  });

  it('is admitted by every development dependency (npm ci warns about none)', () => {
    assert.deepEqual(refusing(true), [], `development dependencies that do not run on the Node of engines.node ${manifest.engines.node}`);
  });

  it('reads ranges as npm does', () => {
    const v: Version = [20, 19, 0];
    for (const yes of ['>=20.19', '>= 8', '>=16 || 14 >=14.17', '>=0.3.1', '^20.1.0', '~20.19.0', '20', '20.x', '>=18 <21', '*', ''])
      assert.ok(satisfies(v, yes), yes);
    for (const no of ['>=22.12', '>20.19.0', '^18', '~20.18', '14 >=14.17', '>=18 <20', '22']) assert.ok(!satisfies(v, no), no);
  });
});

describe('where the package says it comes from', () => {
  const manifest = read('package.json') as Record<string, unknown>;

  it('names no repository, homepage or issue tracker it does not have (the marketplace page and "Report Issue" would lead to a made-up address)', () => {
    // The project has no public home yet: the fields stay out until it does, and packaging allows that
    // (scripts/package.mjs: --allow-missing-repository, README links left relative).
    assert.deepEqual(
      ['repository', 'homepage', 'bugs'].filter((field) => field in manifest),
      [],
      `placeholder fields: ${JSON.stringify({ repository: manifest['repository'], homepage: manifest['homepage'], bugs: manifest['bugs'] })}`,
    );
  });
});
