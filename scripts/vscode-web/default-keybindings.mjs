#!/usr/bin/env node
// @ts-check
// Dumps the real VS Code's default keyboard shortcuts (Linux, macOS, Windows) into test/unit/fixtures/vscodeDefaultKeybindings.json,
// the list test/unit/keybindings.test.ts checks our contributed chords against. It starts code-server (VS Code
// 1.100.3) with no extension of ours, runs "Preferences: Open Default Keyboard Shortcuts (JSON)" in Chromium,
// once per OS (the web workbench takes its OS from the user agent), and copies the document's text through the
// clipboard. The web workbench leaves out a few desktop-only chords: the fixture's `desktopOnly` lists them.
//
//   node scripts/vscode-web/default-keybindings.mjs
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'jsonc-parser';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './browser.mjs';
import { startCodeServer, workbenchUrl } from './codeServer.mjs';
import { CACHE_DIR, CODE_SERVER_VERSION, ROOT, ensureSystemPackages, findChromium } from './install.mjs';
import { killAll } from './processes.mjs';

const FIXTURE = path.join(ROOT, 'test', 'unit', 'fixtures', 'vscodeDefaultKeybindings.json');

/** The workbench takes its OS (and so its keybindings) from the browser's user agent. */
const PLATFORMS = /** @type {const} */ ([
  ['linux', 'Linux', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Control'],
  ['mac', 'macOS', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Meta'],
  ['windows', 'Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Control'],
]);

/**
 * The default keybindings the workbench shows for one OS, as `{ key, command }` (duplicates dropped).
 * @param {string} url @param {string} userAgent @param {string} ctrl
 */
async function dump(url, userAgent, ctrl) {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('Chromium was not found');
  const profile = mkdtempSync(path.join(CACHE_DIR, 'keybindings-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_ARGS, userAgent, viewport: { width: 1400, height: 900 } });
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    const input = page.locator('.quick-input-widget .quick-input-box input');
    const title = 'Preferences: Open Default Keyboard Shortcuts (JSON)';
    await page.keyboard.press('F1');
    await input.fill(`>${title}`);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 30_000 });
    await input.press('Enter');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-line', { hasText: '"command"' }).first().waitFor({ timeout: 30_000 });
    await editor.locator('.view-lines').click();
    await page.keyboard.press(`${ctrl}+A`);
    // Chromium on Linux copies only on Ctrl+C; the editor answers a copy event with its selection on any OS.
    await page.evaluate("document.execCommand('copy')");
    const text = /** @type {string} */ (await page.evaluate('navigator.clipboard.readText()'));
    /** @type {import('jsonc-parser').ParseError[]} */
    const errors = [];
    const entries = /** @type {Array<{ key: string, command: string }>} */ (parse(text, errors, { allowTrailingComma: true }));
    if (!Array.isArray(entries) || entries.length < 500) throw new Error(`the document did not read as the keybindings list (${errors.length} errors): ${text.slice(0, 200)}`);
    return [...new Map(entries.map((e) => [`${e.key}\u0000${e.command}`, { key: e.key, command: e.command }])).values()];
  } finally {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * The fixture with one keybinding a line, so a regenerated list diffs line by line.
 * @param {Record<string, unknown>} fixture
 */
export function formatFixture(fixture) {
  const fields = Object.entries(fixture).map(([name, value]) =>
    Array.isArray(value) ? `  ${JSON.stringify(name)}: [\n${value.map((item) => `    ${JSON.stringify(item)}`).join(',\n')}\n  ]` : `  ${JSON.stringify(name)}: ${JSON.stringify(value)}`,
  );
  return `{\n${fields.join(',\n')}\n}\n`;
}

async function main() {
  ensureSystemPackages({ browser: true });
  mkdirSync(CACHE_DIR, { recursive: true });
  const scratch = mkdtempSync(path.join(CACHE_DIR, 'keybindings-'));
  const folder = path.join(scratch, 'empty');
  mkdirSync(folder);
  const server = await startCodeServer({ scratch: path.join(scratch, 'server') });
  try {
    const url = workbenchUrl(server.url, { folder });
    const previous = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    /** @type {Record<string, unknown>} */
    const lists = {};
    for (const [id, name, userAgent, ctrl] of PLATFORMS) {
      lists[id] = await dump(url, userAgent, ctrl);
      console.log(`[keybindings] ${name}: ${/** @type {unknown[]} */ (lists[id]).length} default keybindings`);
    }
    const version = CODE_SERVER_VERSION.replace(/^4\./, '1.');
    const source = `VS Code ${version} (code-server ${CODE_SERVER_VERSION}): "Preferences: Open Default Keyboard Shortcuts (JSON)" with the browser's user agent set to each OS (scripts/vscode-web/default-keybindings.mjs)`;
    writeFileSync(FIXTURE, formatFixture({ ...previous, source, ...lists }));
    console.log(`[keybindings] written to ${path.relative(ROOT, FIXTURE)}`);
  } finally {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) main().catch(async (error) => {
  console.error(`[keybindings] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await killAll();
  process.exit(1);
});
