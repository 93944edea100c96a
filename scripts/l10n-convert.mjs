// Wraps user-facing strings for localization (issue 15, "Localizable"), mechanically and idempotently.
//
//   node scripts/l10n-convert.mjs [--manifest] [--dry-run] [paths…]
//
// paths (files or folders, default src/): every .ts/.tsx text at a user-facing site (the rules are in
// scripts/l10n/sites.mjs) becomes a t() call: vscode.l10n.t in src/vscode/ and src/extension.ts, l10n.t
// from '@vscode/l10n' elsewhere; `${x}` placeholders become {0} arguments, and a placeholder choosing
// between two plain strings (`${n === 1 ? 'file' : 'files'}`) becomes a choice between two whole messages.
// --manifest: package.json's user-facing strings move to package.nls.json as %keys%.
// It prints what it changed and what it left for a person (text built with +, text inside a placeholder,
// module-level constants: t() there would run before the bundle is configured). Run `npm run l10n` after.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertManifest } from './l10n/manifest.mjs';
import { choiceOf, findTexts, layerOf, messageOf, textLeaves } from './l10n/sites.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ts = createRequire(import.meta.url)('typescript');

/** A TypeScript string literal of `text`, single-quoted. */
export function quote(text) {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}'`;
}

/** The t() call for a message and its argument expressions. */
function call(fn, message, args) {
  return `${fn}(${[quote(message), ...args].join(', ')})`;
}

/** The replacement of a template literal, or a reason to leave it to a person. */
function convertTemplate(node, fn) {
  const spans = node.templateSpans.map((span) => ({ span, choice: choiceOf(ts, span.expression) }));
  const choices = spans.filter((s) => s.choice);
  const fragments = spans.filter((s) => !s.choice && textLeaves(ts, s.span.expression).some((leaf) => /\p{L}/u.test(leaf.getText())));
  if (fragments.length > 0) return { reason: `text inside a placeholder (${fragments.map((f) => f.span.expression.getText()).join(', ')}): rewrite as whole messages` };
  if (choices.length > 2) return { reason: 'more than two choices inside one text: rewrite as whole messages' };
  const build = (picks) => {
    let message = node.head.text;
    const args = [];
    spans.forEach(({ span, choice }, i) => {
      if (choice) message += picks[choices.findIndex((c) => c.span === span)] ? choice.whenTrue : choice.whenFalse;
      else {
        const text = span.expression.getText();
        let index = args.indexOf(text);
        if (index < 0) index = args.push(text) - 1;
        message += `{${index}}`;
      }
      message += node.templateSpans[i].literal.text;
    });
    return call(fn, message, args);
  };
  const expand = (picks) => {
    if (picks.length === choices.length) return build(picks);
    const c = choices[picks.length].choice;
    return `(${c.condition} ? ${expand([...picks, true])} : ${expand([...picks, false])})`;
  };
  return { text: expand([]) };
}

/** Converts one file's text; returns { text, changed: [{ where, message }], left: [{ where, text }] }. */
export function convertSource(file, source) {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const layer = layerOf(file);
  const fn = layer === 'vscode' ? 'vscode.l10n.t' : 'l10n.t';
  const { texts, notes } = findTexts(ts, sourceFile);
  const edits = [];
  const changed = [];
  const left = notes.map((n) => ({ where: n.where, text: n.text }));
  for (const entry of texts) {
    if (entry.wrapped) continue;
    const { node } = entry;
    if (entry.moduleLevel) {
      left.push({ where: entry.where, text: `module-level text "${entry.message}": t() would run before the bundle is configured; make it a function` });
      continue;
    }
    let replacement;
    if (ts.isJsxText(node)) {
      const lead = /^\s*/.exec(node.text)[0];
      const trail = /\s*$/.exec(node.text)[0];
      replacement = `${lead}{${call(fn, messageOf(ts, node).message, [])}}${trail}`;
      edits.push({ start: node.pos, end: node.end, text: replacement });
      changed.push({ where: entry.where, message: messageOf(ts, node).message });
      continue;
    }
    if (ts.isTemplateExpression(node)) {
      const result = convertTemplate(node, fn);
      if (result.reason) {
        left.push({ where: entry.where, text: `"${entry.message}": ${result.reason}` });
        continue;
      }
      replacement = result.text;
    } else {
      if (/[{}]/.test(node.text)) {
        left.push({ where: entry.where, text: `"${node.text}" has braces, which t() reads as placeholders` });
        continue;
      }
      replacement = call(fn, node.text, []);
    }
    if (entry.jsxAttribute) replacement = `{${replacement}}`;
    edits.push({ start: node.getStart(sourceFile), end: node.end, text: replacement });
    changed.push({ where: entry.where, message: entry.message });
  }
  if (edits.length === 0) return { text: source, changed, left };
  const importEdit = importFor(sourceFile, layer);
  if (importEdit) edits.push(importEdit);
  edits.sort((a, b) => b.start - a.start);
  let text = source;
  for (const edit of edits) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  return { text, changed, left };
}

/** The import t() needs, unless the file has it. */
function importFor(sourceFile, layer) {
  const imports = sourceFile.statements.filter(ts.isImportDeclaration);
  const module = layer === 'vscode' ? 'vscode' : '@vscode/l10n';
  const name = layer === 'vscode' ? 'vscode' : 'l10n';
  const has = imports.some(
    (i) => ts.isStringLiteral(i.moduleSpecifier) && i.moduleSpecifier.text === module && !i.importClause?.isTypeOnly && i.importClause?.namedBindings && ts.isNamespaceImport(i.importClause.namedBindings) && i.importClause.namedBindings.name.text === name,
  );
  if (has) return undefined;
  const line = `import * as ${name} from '${module}';\n`;
  if (layer === 'vscode') {
    // A type-only namespace import of 'vscode' becomes a value import.
    const typeOnly = imports.find((i) => ts.isStringLiteral(i.moduleSpecifier) && i.moduleSpecifier.text === 'vscode' && i.importClause?.isTypeOnly && i.importClause.namedBindings && ts.isNamespaceImport(i.importClause.namedBindings));
    if (typeOnly) return { start: typeOnly.getStart(sourceFile), end: typeOnly.end, text: line.trimEnd() };
  }
  // Sorted in among the imports by module name, as the files keep them.
  const after = imports.filter((i) => ts.isStringLiteral(i.moduleSpecifier) && i.moduleSpecifier.text.localeCompare(module) < 0 && !i.moduleSpecifier.text.startsWith('.')).at(-1);
  const before = imports.find((i) => !after || i.pos > after.pos);
  if (after) return { start: after.end + 1, end: after.end + 1, text: line };
  if (before) return { start: before.getStart(sourceFile), end: before.getStart(sourceFile), text: line };
  const first = sourceFile.statements[0];
  const at = first ? first.getStart(sourceFile) : 0;
  return { start: at, end: at, text: line };
}

function filesUnder(target) {
  if (!existsSync(target)) throw new Error(`${target} does not exist`);
  if (statSync(target).isFile()) return [target];
  return readdirSync(target, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(target, e.name)) : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path.join(target, e.name)] : []));
}

function main(argv) {
  const dryRun = argv.includes('--dry-run');
  const manifest = argv.includes('--manifest');
  const targets = argv.filter((a) => !a.startsWith('--'));
  let changedCount = 0;
  let leftCount = 0;
  if (manifest) {
    const manifestFile = path.join(root, 'package.json');
    const nlsFile = path.join(root, 'package.nls.json');
    const pkg = JSON.parse(readFileSync(manifestFile, 'utf8'));
    const nls = existsSync(nlsFile) ? JSON.parse(readFileSync(nlsFile, 'utf8')) : {};
    const { changed, clashes } = convertManifest(pkg, nls);
    for (const key of changed) console.log(`package.json: ${key} → package.nls.json`);
    for (const clash of clashes) console.log(`package.json: LEFT ${clash} (the key exists with another text)`);
    changedCount += changed.length;
    leftCount += clashes.length;
    if (!dryRun && changed.length > 0) {
      writeFileSync(manifestFile, `${JSON.stringify(pkg, null, 2)}\n`);
      writeFileSync(nlsFile, `${JSON.stringify(nls, null, 2)}\n`);
    }
  }
  const files = targets.length > 0 || !manifest ? (targets.length > 0 ? targets : ['src']).flatMap((t) => filesUnder(path.resolve(t))) : [];
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    const { text, changed, left } = convertSource(path.relative(root, file), source);
    for (const c of changed) console.log(`${c.where}: "${c.message}"`);
    for (const l of left) console.log(`${l.where}: LEFT ${l.text}`);
    changedCount += changed.length;
    leftCount += left.length;
    if (!dryRun && text !== source) writeFileSync(file, text);
  }
  console.log(`l10n-convert: ${changedCount} converted, ${leftCount} left for a person${dryRun ? ' (dry run: nothing written)' : ''}.`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
