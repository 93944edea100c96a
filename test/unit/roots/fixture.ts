/**
 * A scratch tree for the RootGuard and guarded file access tests, built under os.tmpdir() (real path):
 *
 * ```
 * <base>/
 *   app/                       root
 *     file.txt  a..b  crlf.txt
 *     sub/inner.txt
 *     link-out-file   -> ../outside/secret.txt      (file, leads outside)
 *     link-out-dir    -> ../outside/dir             (folder, leads outside)
 *     link-in         -> sub/inner.txt              (stays inside)
 *     link-in-dir     -> ../lib/src                 (into the second root)
 *     link-lib-abs    -> <base>/lib                 (absolute, into the second root)
 *     link-up         -> ..                         (the parent of the roots)
 *     link-self-dir   -> .                          (app itself)
 *     loop-a -> loop-b,  loop-b -> loop-a,  self -> self
 *     dangling-out    -> ../outside/nothing.txt     (missing, would be outside)
 *     dangling-in     -> sub/not-yet.txt            (missing, would be inside)
 *     dangling-dir-out-> ../outside/missing-dir     (missing folder, would be outside)
 *     chain-1 -> chain-2 -> chain-3 -> sub          (a chain that stays inside)
 *   app2/x.txt                 sibling whose name starts with "app"
 *   lib/                       root
 *     src/greet.ts
 *     nested/deep.txt          nested/ is a root too
 *   outside/
 *     secret.txt  file.txt
 *     dir/x  dir/sub/
 *   link-to-app -> app
 * ```
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Fixture {
  /** Real path of the scratch folder. */
  readonly base: string;
  /** The roots: app, lib, lib/nested. */
  readonly roots: readonly string[];
  /** `<base>/<segments joined with "/">`, not normalised. */
  p(...segments: string[]): string;
  cleanup(): void;
}

export function makeFixture(): Fixture {
  const base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-roots-')));
  const p = (...segments: string[]): string => [base, ...segments].join('/');
  const file = (rel: string, text: string): void => {
    fs.mkdirSync(path.dirname(p(rel)), { recursive: true });
    fs.writeFileSync(p(rel), text);
  };
  const link = (rel: string, target: string): void => fs.symlinkSync(target, p(rel));

  file('app/file.txt', 'one\ntwo\nthree\n');
  file('app/a..b', 'dots\n');
  file('app/crlf.txt', 'l1\r\nl2\r\nl3\r\nl4');
  file('app/sub/inner.txt', 'inner\n');
  file('app2/x.txt', 'sibling\n');
  file('lib/src/greet.ts', 'export const greet = 1;\n');
  file('lib/nested/deep.txt', 'deep\n');
  file('outside/secret.txt', 'SECRET\n');
  file('outside/file.txt', 'OUTSIDE FILE\n');
  file('outside/dir/x', 'outside x\n');
  fs.mkdirSync(p('outside/dir/sub'));

  link('app/link-out-file', '../outside/secret.txt');
  link('app/link-out-dir', '../outside/dir');
  link('app/link-in', 'sub/inner.txt');
  link('app/link-in-dir', '../lib/src');
  link('app/link-lib-abs', p('lib'));
  link('app/link-up', '..');
  link('app/link-self-dir', '.');
  link('app/loop-a', 'loop-b');
  link('app/loop-b', 'loop-a');
  link('app/self', 'self');
  link('app/dangling-out', '../outside/nothing.txt');
  link('app/dangling-in', 'sub/not-yet.txt');
  link('app/dangling-dir-out', '../outside/missing-dir');
  link('app/chain-1', 'chain-2');
  link('app/chain-2', 'chain-3');
  link('app/chain-3', 'sub');
  link('link-to-app', 'app');

  return {
    base,
    roots: [p('app'), p('lib'), p('lib/nested')],
    p,
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

/** Every file and folder under `dir` (relative, sorted), symlinks listed but not followed. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      out.push(child);
      if (entry.isDirectory()) walk(child);
    }
  };
  walk('');
  return out.sort();
}
