/**
 * Localization (issue 15, "Localizable"): the manifest's strings are %keys% of package.nls.json, every t()
 * message is extractable and l10n/bundle.l10n.json is current, no user-facing string in the converted code
 * is left unwrapped (the rules of scripts/l10n/sites.mjs, the same the conversion tool applies), and a
 * bundle really changes the text.
 */
import * as l10n from '@vscode/l10n';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { refusalScopeText, refusedRequestText } from '../../../src/shared/refusalText';

const root = path.resolve(__dirname, '..', '..', '..', '..');

/** Where the rules hold: everything (wave 2 ran `node scripts/l10n-convert.mjs --manifest` over all of src). */
const CONVERTED = ['src'];
const MANIFEST_CONVERTED = true;

/** Texts that look user-facing to the rules but are not (each with why). */
const ALLOWED: ReadonlyArray<{ file: string; message: string; why: string }> = [
  { file: 'src/acp/schema/primitives.ts', message: 'expected an object with a string "{0}"', why: 'a zod issue: the -32602 answer to the agent and the log' },
  { file: 'src/sessions/turns/promptBuilder.ts', message: '{0}, lines {1}:\n```\n{2}\n```', why: 'part of the prompt the agent reads, not the UI' },
  { file: 'src/sessions/agents/agentRuntimes.ts', message: 'ACP Workspace', why: 'clientInfo.title of initialize: the product name the agent is told' },
  { file: 'src/common/errors.ts', message: 'Unexpected {0}: {1}', why: 'assertNever: a value the type-check rules out, for the log and the bug report' },
];

interface Text {
  readonly message: string;
  readonly where: string;
  readonly wrapped: boolean;
}
interface Sites {
  findTexts(typescript: typeof ts, file: ts.SourceFile): { texts: Text[]; notes: Array<{ where: string; text: string }> };
  isTCallee(typescript: typeof ts, callee: ts.Expression): boolean;
}
interface Manifest {
  manifestProblems(manifest: unknown, nls: Record<string, string>): string[];
  convertManifest(manifest: unknown, nls: Record<string, string>): { changed: string[]; clashes: string[] };
}
const load = <T>(file: string): Promise<T> => import(pathToFileURL(path.join(root, file)).href) as Promise<T>;

function sourceFiles(target: string): string[] {
  const full = path.join(root, target);
  if (fs.statSync(full).isFile()) return [target];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? sourceFiles(path.join(target, e.name)) : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path.join(target, e.name)] : [],
    );
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(
    file,
    fs.readFileSync(path.join(root, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
}

describe('Localization', () => {
  afterEach(() => l10n.config({ contents: {} }));

  it('package.json: every %key% is in package.nls.json, and no user-facing string is a literal', async () => {
    const { manifestProblems, convertManifest } = await load<Manifest>('scripts/l10n/manifest.mjs');
    const manifest: unknown = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const nlsFile = path.join(root, 'package.nls.json');
    const nls = fs.existsSync(nlsFile) ? (JSON.parse(fs.readFileSync(nlsFile, 'utf8')) as Record<string, string>) : {};
    if (MANIFEST_CONVERTED) {
      assert.deepEqual(manifestProblems(manifest, nls), []);
    } else {
      // Until wave 2: the tool converts the manifest completely, without clashing keys.
      assert.deepEqual(
        manifestProblems(manifest, nls).filter((p) => p.includes('is not in package.nls.json')),
        [],
      );
      const copy = structuredClone(manifest);
      const copyNls = { ...nls };
      const { changed, clashes } = convertManifest(copy, copyNls);
      assert.ok(changed.length > 20, `converted ${changed.length}`);
      assert.deepEqual(clashes, []);
      assert.deepEqual(manifestProblems(copy, copyNls), []);
      assert.equal(
        copyNls['command.acpWorkspace.newSession'],
        (manifest as { contributes: { commands: Array<{ command: string; title: string }> } }).contributes.commands.find(
          (c) => c.command === 'acpWorkspace.newSession',
        )?.title,
      );
    }
  });

  it('the manifest check catches a literal and a missing key', async () => {
    const { manifestProblems } = await load<Manifest>('scripts/l10n/manifest.mjs');
    const problems = manifestProblems(
      { displayName: '%displayName%', contributes: { commands: [{ command: 'a.b', title: 'Do It', category: '%category.x%' }] } },
      { 'category.x': 'X' },
    );
    assert.equal(problems.length, 2, problems.join('\n'));
  });

  it('every t() message is a string literal, so the export finds it', async () => {
    const { isTCallee } = await load<Sites>('scripts/l10n/sites.mjs');
    const bad: string[] = [];
    for (const file of sourceFiles('src')) {
      const source = parse(file);
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && isTCallee(ts, node.expression) && !(node.arguments[0] && ts.isStringLiteral(node.arguments[0]))) {
          bad.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    assert.deepEqual(bad, []);
  });

  it('l10n/bundle.l10n.json is current (npm run l10n)', function () {
    // The export parses every source file (about 15 s of CPU): a bound for a hang, not for a busy machine (it
    // took over 120 s on one running seven test suites at once).
    this.timeout(600_000);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'l10n-export-'));
    try {
      const cli = path.join(root, 'node_modules', '@vscode', 'l10n-dev', 'dist', 'cli.js');
      const result = spawnSync(process.execPath, [cli, 'export', '--outDir', out, './src'], { cwd: root, encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      const fresh = JSON.parse(fs.readFileSync(path.join(out, 'bundle.l10n.json'), 'utf8')) as unknown;
      const committed = JSON.parse(fs.readFileSync(path.join(root, 'l10n', 'bundle.l10n.json'), 'utf8')) as unknown;
      assert.deepEqual(committed, fresh, 'l10n/bundle.l10n.json is stale: run npm run l10n');
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('no user-facing string of the converted code is left unwrapped', async () => {
    const { findTexts } = await load<Sites>('scripts/l10n/sites.mjs');
    const left: string[] = [];
    for (const file of CONVERTED.flatMap(sourceFiles)) {
      const { texts, notes } = findTexts(ts, parse(file));
      for (const text of texts) {
        if (!text.wrapped && !ALLOWED.some((a) => a.file === file && a.message === text.message)) left.push(`${text.where}: "${text.message}"`);
      }
      for (const note of notes) left.push(`${note.where}: ${note.text}`);
    }
    assert.deepEqual(left, [], 'run node scripts/l10n-convert.mjs on these files');
  });

  it('t() fills placeholders, in English and from a bundle', () => {
    assert.equal(l10n.t('Found {0} files', 3), 'Found 3 files');
    assert.equal(l10n.t('{0} of {1}', 'a', 2), 'a of 2');
    l10n.config({ contents: { 'Found {0} files': '[Fôûñð {0} ƒîļéš]' } });
    assert.equal(l10n.t('Found {0} files', 3), '[Fôûñð 3 ƒîļéš]');
    assert.equal(l10n.t('Not in the bundle {0}', 1), 'Not in the bundle 1');
  });

  it('a pseudo-locale bundle changes the text of a plain-Node layer', () => {
    const english = refusalScopeText('read');
    const refused = refusedRequestText({ operation: 'write', path: '/x/a.ts' }, 'Agent A');
    assert.equal(refused, 'ACP Workspace refused Agent A’s request to write /x/a.ts (fs/write_text_file).');
    const committed = JSON.parse(fs.readFileSync(path.join(root, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>;
    // A pseudo-locale: every message of the shipped bundle, bracketed (placeholders kept).
    const pseudo = Object.fromEntries(Object.keys(committed).map((key) => [key, `⟦${key}⟧`]));
    l10n.config({ contents: pseudo });
    assert.equal(refusalScopeText('read'), `⟦${english}⟧`);
    assert.equal(refusedRequestText({ operation: 'write', path: '/x/a.ts' }, 'Agent A'), `⟦${refused}⟧`);
  });
});
