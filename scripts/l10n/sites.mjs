// Where user-facing text sits in our TypeScript, for the conversion tool (scripts/l10n-convert.mjs) and the
// check that nothing user-facing is left unwrapped (test/unit/l10n/l10nSources.test.ts). One set of rules
// for both, so what the tool converts is exactly what the check asks for.
//
// User-facing sites:
//   - arguments of window.show{Information,Warning,Error}Message (and the `detail` of their options),
//     setStatusBarMessage, Thread.addInfo/addError, Notices.error, the title of createWebviewPanel and of
//     `vscode.diff`;
//   - properties named like UI text (TEXT_PROPS: QuickPick/InputBox/TreeItem/status bar fields, the text
//     fields of our own view models) in object literals and assignments;
//   - messages of `new …Error(…)` (they reach the user: the chat, the Agents view, notifications), outside
//     src/acp/ (protocol);
//   - `return` values and arrow bodies that are sentences;
//   - `===`/`!==` against a sentence (the other side was converted);
//   - in .tsx: JSX text, and the attributes title, aria-label, placeholder, alt and their `{…}` values,
//     and string or template children in `{…}`.
// From a site the rules follow conditionals, `??`/`||`, arrays (and `[…].join()`), parentheses and a
// `const` holding the text. Not sites: log lines (logger.*), ids, protocol strings, CSS classes.
import path from 'node:path';

/** Properties whose string value a user reads. */
export const TEXT_PROPS = new Set([
  'title', 'label', 'description', 'detail', 'tooltip', 'placeholder', 'placeHolder', 'prompt', 'validationMessage',
  'text', 'summary', 'unavailable', 'reason', 'noHunks', 'blocked', 'note', 'action', 'statusDetail', 'message',
]);
const MESSAGE_CALLS = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage']);
const FIRST_ARG_CALLS = new Set(['setStatusBarMessage', 'addInfo', 'addError']);
// `label`: our own controls (Icon, IconButton, ActionButton, Select, Segmented) make it their aria-label.
const JSX_TEXT_ATTRIBUTES = new Set(['title', 'aria-label', 'placeholder', 'alt', 'aria-description', 'aria-roledescription', 'label']);

/** 'vscode' for the adapter layer (vscode.l10n.t), 'node' for plain-Node layers, 'browser' for webviews and shared. */
export function layerOf(file) {
  const rel = file.split(path.sep).join('/');
  if (/(^|\/)src\/(vscode\/|extension\.ts$)/.test(rel)) return 'vscode';
  if (/(^|\/)src\/(webview|shared)\//.test(rel)) return 'browser';
  return 'node';
}

/** Is this text a user reads (not an id, a path, a flag, a CSS class)? `loose` accepts single words. */
export function isText(text, loose) {
  const s = text.replace(/\{\d+\}/g, ' ').trim();
  if (!/\p{L}{2}/u.test(s)) return false;
  // 'phrase': a `const` put into a text: words with a space between them, no path.
  if (loose === 'phrase') return /\p{L}{2,}\s+\p{L}/u.test(s) && !/[/\\]/.test(s);
  if (loose) return true;
  if (/^(https?:|file:|[./~\\-]|\$\{)/.test(s)) return false;
  // "{0} waits until…": what follows the leading placeholders decides.
  const rest = text.replace(/^(\{\d+\}[^\p{L}{]*)+/u, '').replace(/\{\d+\}/g, ' ').trim();
  const prose = (t) => /\s/.test(t) && ((/^[\p{Lu}\p{Ll}"“‘'(…]/u.test(t) && !/^[\w-]+(\s+[\w-]+)*$/.test(t)) || /^\p{Lu}/u.test(t));
  if (prose(s) || (rest !== s && prose(rest))) return true;
  return /^\p{Lu}\p{Ll}+$/u.test(s);
}

/** Is `node` inside a call of t() (vscode.l10n.t or l10n.t)? */
export function insideT(ts, node) {
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isCallExpression(n) && isTCallee(ts, n.expression)) return true;
    if (ts.isSourceFile(n)) return false;
  }
  return false;
}

export function isTCallee(ts, callee) {
  return ts.isPropertyAccessExpression(callee) && callee.name.text === 't' && /(^|\.)l10n$/.test(callee.expression.getText());
}

function nameOf(ts, name) {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier?.(name)) return name.text;
  return undefined;
}

function calleeName(ts, call) {
  const c = call.expression;
  if (ts.isPropertyAccessExpression(c)) return { name: c.name.text, receiver: c.expression.getText() };
  if (ts.isIdentifier(c)) return { name: c.text, receiver: '' };
  return { name: '', receiver: '' };
}

function isFunctionLike(ts, node) {
  return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isConstructorDeclaration(node);
}

function isLogCall(ts, node) {
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isCallExpression(n)) {
      const { name, receiver } = calleeName(ts, n);
      if (/(^|\.)(logger|log|console)$/i.test(receiver) && /^(trace|debug|info|warn|error|log|show)$/.test(name)) return true;
    }
    if (isFunctionLike(ts, n) || ts.isSourceFile(n)) return false;
  }
  return false;
}

/**
 * Every user-facing text leaf of a file: string literals, template literals and JSX text at the sites above,
 * whether wrapped already or not. Each: { node, loose, wrapped, moduleLevel, note? }.
 * `notes` collects what needs a person (concatenations, text inside a placeholder, module-level constants).
 */
export function findTexts(ts, sourceFile) {
  const found = new Map();
  const notes = [];
  const where = (node) => {
    const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
    return `${sourceFile.fileName}:${line + 1}`;
  };
  const note = (node, text) => notes.push({ where: where(node), text, pos: node.getStart(sourceFile) });

  /** Follows an expression at a user-facing site down to its text leaves. */
  const follow = (expr, loose, depth = 0) => {
    if (!expr || depth > 8) return;
    if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isNonNullExpression(expr) || ts.isSatisfiesExpression?.(expr) || ts.isSpreadElement(expr)) return follow(expr.expression, loose, depth + 1);
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr) || ts.isTemplateExpression(expr)) {
      if (ts.isCallExpression(expr.parent) && isTCallee(ts, expr.parent.expression)) return;
      if (!found.has(expr)) found.set(expr, { node: expr, loose });
      return;
    }
    if (ts.isConditionalExpression(expr)) {
      follow(expr.whenTrue, loose, depth + 1);
      follow(expr.whenFalse, loose, depth + 1);
      return;
    }
    if (ts.isBinaryExpression(expr)) {
      const op = expr.operatorToken.kind;
      if (op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.BarBarToken) {
        follow(expr.left, loose, depth + 1);
        follow(expr.right, loose, depth + 1);
      } else if (op === ts.SyntaxKind.PlusToken && hasTextLiteral(expr)) {
        note(expr, 'text built with +: write it as one template literal, then run the tool again');
      }
      return;
    }
    if (ts.isArrayLiteralExpression(expr)) {
      for (const element of expr.elements) follow(ts.isSpreadElement(element) ? element.expression : element, loose, depth + 1);
      return;
    }
    if (ts.isCallExpression(expr) && ts.isPropertyAccessExpression(expr.expression) && ['join', 'filter', 'slice', 'concat'].includes(expr.expression.name.text)) {
      return follow(expr.expression.expression, loose, depth + 1);
    }
    if (ts.isIdentifier(expr)) {
      const declaration = constDeclaration(ts, sourceFile, expr);
      if (declaration?.initializer) follow(declaration.initializer, loose, depth + 1);
    }
  };
  const hasTextLiteral = (expr) => {
    let yes = false;
    const visit = (n) => {
      if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && isText(n.text, false)) yes = true;
      else if (ts.isBinaryExpression(n) || ts.isParenthesizedExpression(n)) ts.forEachChild(n, visit);
    };
    visit(expr);
    return yes;
  };

  const visit = (node) => {
    if (ts.isCallExpression(node) && isTCallee(ts, node.expression)) {
      // The same for the arguments of a t() call (the second run of the tool sees them there).
      for (const arg of node.arguments.slice(1)) if (ts.isIdentifier(arg)) follow(arg, 'phrase');
    } else if (ts.isCallExpression(node)) {
      const { name, receiver } = calleeName(ts, node);
      if (MESSAGE_CALLS.has(name)) {
        for (const arg of node.arguments) {
          if (ts.isObjectLiteralExpression(arg)) continue; // its `detail` is a TEXT_PROPS property
          follow(arg, true);
        }
      } else if (FIRST_ARG_CALLS.has(name) || (name === 'error' && /(^|\.)notices$/.test(receiver))) {
        follow(node.arguments[0], true);
      } else if (name === 'createWebviewPanel') {
        follow(node.arguments[1], true);
      } else if (name === 'executeCommand' && node.arguments.length >= 4 && ts.isStringLiteral(node.arguments[0]) && node.arguments[0].text === 'vscode.diff') {
        follow(node.arguments[3], true);
      }
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && /Error$/.test(node.expression.text) && !/(^|\/)src\/acp\//.test(sourceFile.fileName)) {
      for (const arg of node.arguments ?? []) follow(arg, false);
    } else if (ts.isPropertyAssignment(node) && TEXT_PROPS.has(nameOf(ts, node.name))) {
      follow(node.initializer, false);
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && TEXT_PROPS.has(node.left.name.text)) {
      follow(node.right, false);
    } else if (ts.isReturnStatement(node) && node.expression) {
      followSentence(node.expression);
    } else if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) {
      followSentence(node.body);
    } else if (ts.isBinaryExpression(node) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind)) {
      for (const side of [node.left, node.right]) if (ts.isStringLiteral(side) && isSentence(side.text)) follow(side, false);
    } else if (ts.isJsxText(node)) {
      if (!node.containsOnlyTriviaWhiteSpaces && isText(node.text.trim(), true)) found.set(node, { node, loose: true });
    } else if (ts.isJsxAttribute(node) && JSX_TEXT_ATTRIBUTES.has(node.name.getText())) {
      const init = node.initializer;
      if (init && ts.isStringLiteral(init)) found.set(init, { node: init, loose: true, jsxAttribute: true });
      else if (init && ts.isJsxExpression(init)) follow(init.expression, true);
    } else if (ts.isJsxExpression(node) && node.expression && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))) {
      follow(node.expression, false);
    }
    ts.forEachChild(node, visit);
  };
  /** A return value or arrow body counts when it is a sentence (or a choice of sentences). */
  const followSentence = (expr) => {
    const before = new Set(found.keys());
    const probe = new Map();
    const saved = [...found];
    follow(expr, false);
    for (const [key, value] of found) if (!before.has(key)) probe.set(key, value);
    found.clear();
    for (const [k, v] of saved) found.set(k, v);
    for (const [key, value] of probe) if (isSentence(messageOf(ts, key).message)) found.set(key, value);
  };
  visit(sourceFile);
  // A `const` placed into a text (`Accept ${label}`) is text too.
  for (const entry of [...found.values()]) {
    if (!ts.isTemplateExpression(entry.node)) continue;
    for (const span of entry.node.templateSpans) if (ts.isIdentifier(span.expression)) follow(span.expression, 'phrase');
  }
  // A comparison of an answer with a converted text (`answer === 'Delete'`) is converted with it; a property
  // compared with the same word (`entry.state === 'undone'`) is an id, not the label.
  const messages = new Set([...found.values()].map((e) => messageOf(ts, e.node).message));
  const compare = (node) => {
    if (ts.isBinaryExpression(node) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind)) {
      for (const [side, other] of [[node.left, node.right], [node.right, node.left]]) if (ts.isStringLiteral(side) && ts.isIdentifier(other) && messages.has(side.text) && !found.has(side)) found.set(side, { node: side, loose: true });
    }
    ts.forEachChild(node, compare);
  };
  compare(sourceFile);

  const texts = [];
  for (const entry of found.values()) {
    const { node } = entry;
    if (isLogCall(ts, node)) continue;
    const { message, nested } = messageOf(ts, node);
    if (!isText(message, entry.loose) && !ts.isJsxText(node)) continue;
    const wrapped = insideT(ts, node);
    // A webview configures its bundle in its first import (webview/common/l10nSetup.ts), so module-level
    // t() is fine there; in the extension host it would run before activate() configures the bundle.
    const moduleLevel = !wrapped && !ts.isJsxText(node) && !enclosingFunction(ts, node) && !/(^|\/)src\/webview\//.test(sourceFile.fileName);
    texts.push({ ...entry, message, nested, wrapped, moduleLevel, where: where(node), pos: node.getStart(sourceFile) });
  }
  texts.sort((a, b) => a.pos - b.pos);
  // Text inside the placeholder of another text is a fragment: a person rewrites it as whole messages.
  const outer = texts.filter((a) => !texts.some((b) => b !== a && b.node.pos <= a.node.pos && a.node.end <= b.node.end && b.node !== a.node));
  for (const inner of texts) {
    if (!outer.includes(inner) && !inner.wrapped) note(inner.node, `text inside a placeholder: "${inner.message}"`);
  }
  return { texts: outer, notes };
}

/** Sentences: what a return value must look like to count as text. */
export function isSentence(text) {
  const s = text.replace(/\{\d+\}/g, 'x').trim();
  return isText(s, false) && /\s/.test(s) && (/[.?!…:]$/.test(s) || /^\p{Lu}\p{Ll}*\s/u.test(s));
}

function enclosingFunction(ts, node) {
  for (let n = node.parent; n; n = n.parent) {
    if (isFunctionLike(ts, n)) return n;
    if (ts.isSourceFile(n)) return undefined;
  }
  return undefined;
}

/** The declaration of a `const` in this file that holds text. */
function constDeclaration(ts, sourceFile, identifier) {
  let result;
  const visit = (node) => {
    if (result) return;
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === identifier.text && node.parent && ts.isVariableDeclarationList(node.parent) && node.parent.flags & ts.NodeFlags.Const) {
      if (node.pos <= identifier.pos || !enclosingFunction(ts, node)) result = node;
    }
    ts.forEachChild(node, visit);
  };
  const scope = enclosingFunction(ts, identifier);
  if (scope) visit(scope);
  if (!result) visit(sourceFile);
  return result;
}

/**
 * The message of a text leaf: its static text with `${…}` turned into {0}, {1}, … (the same expression
 * twice gets one number), the arguments, and whether a placeholder holds text itself.
 */
export function messageOf(ts, node) {
  if (ts.isJsxText(node)) {
    const message = node.text.includes('\n') ? node.text.split('\n').map((l) => l.trim()).filter(Boolean).join(' ') : node.text.trim();
    return { message, args: [], nested: false };
  }
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return { message: node.text, args: [], nested: false };
  let message = node.head.text;
  const args = [];
  let nested = false;
  for (const span of node.templateSpans) {
    const text = span.expression.getText();
    let index = args.indexOf(text);
    if (index < 0) {
      index = args.length;
      args.push(text);
    }
    if (containsText(ts, span.expression)) nested = true;
    message += `{${index}}${span.literal.text}`;
  }
  return { message, args, nested };
}

/** Text leaves inside a placeholder, through conditionals, `??`/`||` and parentheses (any letters count). */
function containsText(ts, expr) {
  return textLeaves(ts, expr).some((leaf) => /\p{L}/u.test(leaf.getText()));
}

export function textLeaves(ts, expr) {
  if (ts.isParenthesizedExpression(expr)) return textLeaves(ts, expr.expression);
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr) || ts.isTemplateExpression(expr)) return [expr];
  if (ts.isConditionalExpression(expr)) return [...textLeaves(ts, expr.whenTrue), ...textLeaves(ts, expr.whenFalse)];
  if (ts.isBinaryExpression(expr) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.PlusToken].includes(expr.operatorToken.kind)) {
    return [...textLeaves(ts, expr.left), ...textLeaves(ts, expr.right)];
  }
  return [];
}

/** `cond ? 'a' : 'b'` with two plain strings: a placeholder the tool turns into two whole messages. */
export function choiceOf(ts, expr) {
  while (ts.isParenthesizedExpression(expr)) expr = expr.expression;
  if (!ts.isConditionalExpression(expr)) return undefined;
  const plain = (e) => ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e);
  return plain(expr.whenTrue) && plain(expr.whenFalse) ? { condition: expr.condition.getText(), whenTrue: expr.whenTrue.text, whenFalse: expr.whenFalse.text } : undefined;
}
