/**
 * Comparing the registry's version strings: semantic versions (`1.2.3`, `1.2.3-preview.4`, `1.2.3+build`) by
 * semver's precedence; anything else (a date-like `2026.10.01` is still three numbers and compares fine) sorts
 * below every valid version, and two invalid ones by plain string order. Never throws.
 */

interface Parsed {
  readonly core: readonly [bigint, bigint, bigint];
  readonly pre: readonly string[];
}

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]*)?$/;

function parse(version: string): Parsed | undefined {
  const match = SEMVER.exec(version.trim());
  if (!match) return undefined;
  return { core: [BigInt(match[1]!), BigInt(match[2]!), BigInt(match[3]!)], pre: match[4] ? match[4].split('.') : [] };
}

/** Negative when `a` comes before `b`, positive after, 0 when they are equal in precedence (build metadata ignored). */
export function compareVersions(a: string, b: string): number {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) {
    if (left) return 1;
    if (right) return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  for (let i = 0; i < 3; i++) {
    if (left.core[i]! !== right.core[i]!) return left.core[i]! < right.core[i]! ? -1 : 1;
  }
  // A pre-release comes before its release: 1.0.0-rc.1 < 1.0.0.
  if (left.pre.length === 0 && right.pre.length === 0) return 0;
  if (left.pre.length === 0) return 1;
  if (right.pre.length === 0) return -1;
  const length = Math.max(left.pre.length, right.pre.length);
  for (let i = 0; i < length; i++) {
    const x = left.pre[i];
    const y = right.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const order = compareIdentifiers(x, y);
    if (order !== 0) return order;
  }
  return 0;
}

/** Whether `candidate` (what the registry lists) is newer than `installed`. */
export function isNewer(candidate: string, installed: string): boolean {
  return compareVersions(candidate, installed) > 0;
}

/** Numeric identifiers compare as numbers and before alphanumeric ones; alphanumeric ones in ASCII order. */
function compareIdentifiers(x: string, y: string): number {
  const xNumeric = /^\d+$/.test(x);
  const yNumeric = /^\d+$/.test(y);
  if (xNumeric && yNumeric) {
    const a = BigInt(x);
    const b = BigInt(y);
    return a === b ? 0 : a < b ? -1 : 1;
  }
  if (xNumeric) return -1;
  if (yNumeric) return 1;
  return x < y ? -1 : x > y ? 1 : 0;
}
