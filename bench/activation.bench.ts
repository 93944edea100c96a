/**
 * Activation in the real extension host (code-server 4.100.3: VS Code 1.100.3's Node extension host), and the
 * first use after it, as a user meets them: the ACP container opened from the activity bar (activation by the
 * Agents view, whose first rows need the core; the Sessions view below it shows its list), and ACP: New Session run from the Command Palette in a reloaded
 * window (activation by the command, whose stand-in loads the core).
 *
 * Three extensions, each installed alone (a `.vsix`-like folder in a fresh extensions folder) next to a probe:
 *   - empty:  an extension with a view container with one tree row and a command showing a quick pick, and an
 *             activate() that only registers them (the floor: what VS Code's own activation costs, storage and all);
 *   - lazy:   the shipped bundles (dist/extension.js activates, dist/core.js loads on first use);
 *   - eager:  the same code with the core composed at activation, in one bundle (bench/activation/eagerExtension.ts,
 *             what activation did before the split); the baseline for the first use.
 * Activation is the extension host's own bookkeeping: from its `ExtensionService#_doActivateExtension` log line to
 * its `code/extHost/didActivateExtension/<id>` performance mark (which the probe, an extension in the same host,
 * reads from `globalThis.MonacoPerformanceMarks`); code loading (`willLoadExtensionCode` → `didLoadExtensionCode`)
 * shown apart. First use is measured from the page: the click (or Enter) to the row it brings. Cold is the first
 * activation in a fresh user-data folder; warm, after a window reload (same folder, files in the OS cache).
 * Runs interleave the three extensions; medians.
 *
 * Usage: node out/bench/activation.bench.js [--runs N]   (`npm run bench` builds the production bundles first)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import type { Page } from 'playwright-core';
import type * as Browser from '../scripts/vscode-web/browser.mjs';
import type * as CodeServer from '../scripts/vscode-web/codeServer.mjs';
import type * as Install from '../scripts/vscode-web/install.mjs';
import { median, parseArgs, printTable } from './util';

const { runs: RUNS } = parseArgs({ runs: 5 });
const REPO_ROOT = path.resolve(__dirname, '..', '..');
const ACP_ID = 'acp-workspace.acp-workspace';
const EMPTY_ID = 'bench.activation-empty';
const AGENT_ROW = 'Reference Agent (offline)';

type Variant = 'empty' | 'lazy' | 'eager';
const VARIANTS: readonly Variant[] = ['empty', 'lazy', 'eager'];

/** What one window measured. */
interface Activation {
  /** `_doActivateExtension` → `didActivateExtension`, ms. */
  readonly total: number;
  /** `_doActivateExtension` → `willLoadExtensionCode` (the host reads the extension's l10n bundle), ms. */
  readonly before: number;
  /** `willLoadExtensionCode` → `didLoadExtensionCode`: requiring the main file, ms. */
  readonly load: number;
  /** `didLoadExtensionCode` → `willActivateExtension`: the host makes the context (storage), ms. */
  readonly context: number;
  /** `willActivateExtension` → `didActivateExtension`: the activate() call, ms. */
  readonly call: number;
}

interface RunResult {
  readonly cold: Activation;
  readonly warm: Activation;
  /** Click on the container → its first row, ms. */
  readonly coldRows: number;
  readonly warmRows: number;
  /** Click on the container → the Sessions view's list in its webview, ms (not for the empty extension). */
  readonly coldSessions?: number;
  readonly warmSessions?: number;
  /** Activation by a command run from the Command Palette (warm). */
  readonly byCommand: Activation;
  /** Enter on ACP: New Session → the agent pick's row (the empty extension: its own command and pick), ms. */
  readonly newSession: number;
  /** What the extension logged ("Core loaded in N ms"), per window. */
  readonly coreLoads: number[];
}

/** Polls the performance marks of the extension host the probe runs in, into $ACP_BENCH_MARKS. */
const PROBE_MAIN = `
const fs = require('node:fs');
exports.activate = () => {
  const file = process.env.ACP_BENCH_MARKS;
  let written = -1;
  const timer = setInterval(() => {
    const marks = globalThis.MonacoPerformanceMarks.getMarks();
    if (marks.length === written) return;
    written = marks.length;
    fs.writeFileSync(file + '.tmp', JSON.stringify({ pid: process.pid, marks }));
    fs.renameSync(file + '.tmp', file);
  }, 25);
  return { dispose: () => clearInterval(timer) };
};
`;

/** The floor: a container with one tree row, activated by its view like ours, doing nothing. */
const EMPTY_MAIN = `
const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(
    vscode.window.createTreeView('benchEmpty.view', { treeDataProvider: { getChildren: (e) => (e ? [] : ['ready']), getTreeItem: (e) => new vscode.TreeItem(e) } }),
    vscode.commands.registerCommand('benchEmpty.run', () => vscode.window.showQuickPick(['ready'], { title: 'Empty Bench' })),
  );
};
`;

function manifest(name: string, extra: Record<string, unknown>): string {
  return JSON.stringify({ name, publisher: 'bench', version: '0.0.1', engines: { vscode: '^1.100.0' }, main: './main.js', ...extra });
}

/** The three extensions, each in its own extensions folder with the probe. */
async function prepare(scratch: string): Promise<Record<Variant, string>> {
  const dist = path.join(REPO_ROOT, 'dist');
  for (const file of ['extension.js', 'core.js', 'webview/chat.js', 'webview/history.js']) {
    if (!fs.existsSync(path.join(dist, file))) throw new Error(`dist/${file} is missing: run \`node esbuild.mjs --production\` first`);
  }
  const dirs = {} as Record<Variant, string>;
  for (const variant of VARIANTS) {
    const extensions = path.join(scratch, `extensions-${variant}`);
    const probe = path.join(extensions, 'bench.activation-probe-0.0.1');
    fs.mkdirSync(probe, { recursive: true });
    fs.writeFileSync(path.join(probe, 'package.json'), manifest('activation-probe', { activationEvents: ['onStartupFinished'] }));
    fs.writeFileSync(path.join(probe, 'main.js'), PROBE_MAIN);
    dirs[variant] = extensions;
  }
  const empty = path.join(dirs.empty, `${EMPTY_ID}-0.0.1`);
  fs.mkdirSync(empty, { recursive: true });
  fs.writeFileSync(
    path.join(empty, 'package.json'),
    manifest('activation-empty', {
      contributes: {
        viewsContainers: { activitybar: [{ id: 'benchEmpty', title: 'Empty Bench', icon: 'icon.svg' }] },
        views: { benchEmpty: [{ id: 'benchEmpty.view', name: 'Empty' }] },
        commands: [{ command: 'benchEmpty.run', title: 'Run', category: 'Empty Bench' }],
      },
    }),
  );
  fs.writeFileSync(path.join(empty, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><circle cx="12" cy="12" r="8"/></svg>');
  fs.writeFileSync(path.join(empty, 'main.js'), EMPTY_MAIN);
  // What the .vsix ships (see .vscodeignore), installed as VS Code installs a .vsix.
  for (const variant of ['lazy', 'eager'] as const) {
    const target = path.join(dirs[variant], `${ACP_ID}-0.1.0`);
    for (const item of ['package.json', 'package.nls.json', 'l10n', 'media', 'dist']) {
      fs.cpSync(path.join(REPO_ROOT, item), path.join(target, item), {
        recursive: true,
        filter: (source) => !source.endsWith('.map') && !source.includes('reference-agent'),
      });
    }
  }
  await esbuild.build({
    entryPoints: [path.join(REPO_ROOT, 'bench', 'activation', 'eagerExtension.ts')],
    outfile: path.join(dirs.eager, `${ACP_ID}-0.1.0`, 'dist', 'extension.js'),
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    mainFields: ['module', 'main'],
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'warning',
  });
  fs.rmSync(path.join(dirs.eager, `${ACP_ID}-0.1.0`, 'dist', 'core.js'));
  return dirs;
}

interface Mark {
  readonly name: string;
  readonly startTime: number;
}

/** The marks of the extension host started after `since` (the probe rewrites the file for every new host). */
async function marksAfter(file: string, since: number, id: string, timeoutMs = 60_000): Promise<Mark[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { marks } = JSON.parse(fs.readFileSync(file, 'utf8')) as { marks: Mark[] };
      if (marks.some((m) => m.name === `code/extHost/didActivateExtension/${id}` && m.startTime >= since)) return marks;
    } catch {
      // not written yet
    }
    if (Date.now() > deadline) throw new Error(`no activation of ${id} in the marks`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The extension host's `_doActivateExtension` line for `id` at or after `since` (local time, ms), from its log. */
function doActivateAt(userData: string, id: string, since: number): number | undefined {
  const logs = path.join(userData, 'logs');
  const times: number[] = [];
  for (const file of fs.readdirSync(logs, { recursive: true }) as string[]) {
    if (!file.endsWith('exthost.log')) continue;
    for (const line of fs.readFileSync(path.join(logs, file), 'utf8').split('\n')) {
      const match = /^(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)\.(\d+) \[info\] ExtensionService#_doActivateExtension (\S+),/.exec(line);
      if (!match || match[8] !== id) continue;
      const [y, mo, d, h, mi, s, ms] = match.slice(1, 8).map(Number) as [number, number, number, number, number, number, number];
      const at = new Date(y, mo - 1, d, h, mi, s, ms).getTime();
      if (at >= since) times.push(at);
    }
  }
  return times.length > 0 ? Math.min(...times) : undefined;
}

function activationOf(marks: Mark[], id: string, started: number | undefined, since: number): Activation {
  const at = (name: string) => marks.filter((m) => m.name === `code/extHost/${name}/${id}` && m.startTime >= since).at(-1)?.startTime;
  const willLoad = at('willLoadExtensionCode');
  const didLoad = at('didLoadExtensionCode');
  const willActivate = at('willActivateExtension');
  const didActivate = at('didActivateExtension');
  if (willLoad === undefined || didLoad === undefined || willActivate === undefined || didActivate === undefined)
    throw new Error(`incomplete activation marks for ${id}`);
  // The log line comes just before the code loads; without it, the load's start is the closest mark.
  const start = started ?? willLoad;
  return { total: didActivate - start, before: willLoad - start, load: didLoad - willLoad, context: willActivate - didLoad, call: didActivate - willActivate };
}

/** The extension's own "Core loaded in N ms" lines. */
function coreLoads(userData: string): number[] {
  const logs = path.join(userData, 'logs');
  return (fs.readdirSync(logs, { recursive: true }) as string[])
    .filter((file) => file.endsWith('ACP Workspace.log'))
    .flatMap((file) => [...fs.readFileSync(path.join(logs, file), 'utf8').matchAll(/Core loaded in (\d+) ms/g)].map((m) => Number(m[1])));
}

/** Waits for the probe (the extension host is up and past startup), then for the host to settle. */
async function waitForHost(marksFile: string, since: number): Promise<void> {
  await marksAfter(marksFile, since, 'bench.activation-probe');
  await new Promise((resolve) => setTimeout(resolve, 1500));
}

async function openWindow(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
}

/** Clicks an activity bar entry; resolves with the time of the click and the ms until `row` shows in its side bar. */
async function openContainer(page: Page, title: RegExp, row: string): Promise<{ clicked: number; rows: number }> {
  const tab = page.locator('.activitybar').getByRole('tab', { name: title });
  await tab.waitFor({ timeout: 30_000 });
  const sidebar = page.locator('#workbench\\.parts\\.sidebar');
  const target = sidebar.locator('.monaco-list-row', { hasText: row }).first();
  const clicked = Date.now();
  await tab.click();
  await target.waitFor({ timeout: 60_000 });
  return { clicked, rows: Date.now() - clicked };
}

/** The ms from `since` until a webview of the page shows the Sessions view's list (`.sessions`). */
async function sessionsShown(page: Page, since: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    for (const frame of page.frames()) {
      if (await frame.$('.sessions').catch(() => null)) return Date.now() - since;
    }
    if (Date.now() > deadline) throw new Error('the Sessions view did not show its list');
    await page.waitForTimeout(10);
  }
}

/** A command from the Command Palette; resolves with the ms from Enter until the quick pick it opens lists `row`. */
async function runCommand(page: Page, title: string, row: string): Promise<number> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await page.keyboard.press('F1');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 30_000 });
  const pressed = Date.now();
  await input.press('Enter');
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: row }).first().waitFor({ timeout: 60_000 });
  const ms = Date.now() - pressed;
  await input.press('Escape');
  return ms;
}

/** Shows the Explorer, so the reloaded window starts without our container (the next activation is ours to cause). */
async function showExplorer(page: Page): Promise<void> {
  await page
    .locator('.activitybar')
    .getByRole('tab', { name: /^Explorer/ })
    .click();
  await page.locator('#workbench\\.parts\\.sidebar .composite.title').getByText('Explorer', { exact: false }).waitFor({ timeout: 10_000 });
  // VS Code saves the view state on a timer and on unload; give it the timer.
  await page.waitForTimeout(1000);
}

async function measure(
  variant: Variant,
  extensionsDir: string,
  scratch: string,
  tools: { codeServer: typeof CodeServer; browser: typeof Browser },
): Promise<RunResult> {
  const marksFile = path.join(scratch, 'marks.json');
  const folder = path.join(scratch, 'workspace');
  fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'workspaces', 'single'), folder, { recursive: true });
  const server = await tools.codeServer.startCodeServer({ scratch, extensionsDir, env: { ACP_BENCH_MARKS: marksFile } });
  const browser = await tools.browser.launchBrowser();
  try {
    const page = await browser.context.newPage();
    const url = tools.codeServer.workbenchUrl(server.url, { folder });
    const id = variant === 'empty' ? EMPTY_ID : ACP_ID;
    const title = variant === 'empty' ? /^Empty Bench/ : /^ACP/;
    const row = variant === 'empty' ? 'ready' : AGENT_ROW;
    const openAndMeasure = async (): Promise<{ activation: Activation; rows: number; sessions?: number }> => {
      const since = Date.now();
      await openWindow(page, url);
      await waitForHost(marksFile, since);
      const triggered = Date.now();
      const { clicked, rows } = await openContainer(page, title, row);
      const sessions = variant === 'empty' ? undefined : await sessionsShown(page, clicked);
      const marks = await marksAfter(marksFile, triggered, id);
      return { activation: activationOf(marks, id, doActivateAt(server.userDataDir, id, triggered - 5), triggered), rows, sessions };
    };
    const cold = await openAndMeasure();
    await showExplorer(page);
    const warm = await openAndMeasure();
    await showExplorer(page);
    const since = Date.now();
    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await waitForHost(marksFile, since);
    const triggered = Date.now();
    const picked = variant === 'empty' ? await runCommand(page, 'Empty Bench: Run', 'ready') : await runCommand(page, 'ACP: New Session', AGENT_ROW);
    const byCommand = activationOf(await marksAfter(marksFile, triggered, id), id, doActivateAt(server.userDataDir, id, triggered - 5), triggered);
    return {
      cold: cold.activation,
      warm: warm.activation,
      byCommand,
      coldRows: cold.rows,
      warmRows: warm.rows,
      coldSessions: cold.sessions,
      warmSessions: warm.sessions,
      newSession: picked,
      coreLoads: variant === 'empty' ? [] : coreLoads(server.userDataDir),
    };
  } finally {
    await browser.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const tools = {
    codeServer: (await import(pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'codeServer.mjs')).href)) as typeof CodeServer,
    browser: (await import(pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'browser.mjs')).href)) as typeof Browser,
  };
  const install = (await import(pathToFileURL(path.join(REPO_ROOT, 'scripts', 'vscode-web', 'install.mjs')).href)) as typeof Install;
  install.ensureSystemPackages();
  install.ensureCodeServer();
  fs.mkdirSync(install.CACHE_DIR, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(install.CACHE_DIR, 'bench-activation-'));
  try {
    const dirs = await prepare(scratch);
    const results: Record<Variant, RunResult[]> = { empty: [], lazy: [], eager: [] };
    for (let run = 0; run < RUNS; run++) {
      for (const variant of VARIANTS) {
        const runScratch = path.join(scratch, `${variant}-${run}`);
        fs.mkdirSync(runScratch);
        results[variant].push(await measure(variant, dirs[variant], runScratch, tools));
        fs.rmSync(runScratch, { recursive: true, force: true });
        process.stdout.write('.');
      }
    }
    console.log();
    report(results);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function report(results: Record<Variant, RunResult[]>): void {
  const ms = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(0));
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const med = (variant: Variant, pick: (r: RunResult) => number | undefined) => {
    const values = results[variant].map(pick).filter((v): v is number => v !== undefined);
    return values.length > 0 ? median(values) : undefined;
  };
  const steps = (variant: Variant, pick: (r: RunResult) => Activation) =>
    (['before', 'load', 'context', 'call'] as const).map((step) => ms(med(variant, (r) => pick(r)[step]))).join(' + ');
  console.log(
    `\nactivation in the extension host, _doActivateExtension → activated (ms, median of ${RUNS}; in brackets the host's steps: before loading, loading the code, making the context, the activate() call)`,
  );
  const rows = VARIANTS.map((variant) => {
    const cold = med(variant, (r) => r.cold.total)!;
    const warm = med(variant, (r) => r.warm.total)!;
    const command = med(variant, (r) => r.byCommand.total)!;
    return [
      { empty: 'empty extension (baseline)', lazy: 'ACP Workspace (shipped: core on first use)', eager: 'ACP Workspace, core at activation' }[variant],
      `${ms(cold)} (${steps(variant, (r) => r.cold)})`,
      `${ms(warm)} (${steps(variant, (r) => r.warm)})`,
      `${ms(command)} (${steps(variant, (r) => r.byCommand)})`,
      [cold / med('empty', (r) => r.cold.total)!, warm / med('empty', (r) => r.warm.total)!, command / med('empty', (r) => r.byCommand.total)!]
        .map((x) => `${x.toFixed(2)}×`)
        .join(' / '),
    ];
  });
  printTable(['extension', 'container, cold', 'container, warm', 'command, warm', '÷ empty'], rows);
  console.log(`\nfirst use, as the page sees it (ms, median of ${RUNS}, with the fastest and slowest run)`);
  const spread = (variant: Variant, pick: (r: RunResult) => number | undefined) => {
    const values = results[variant].map(pick).filter((v): v is number => v !== undefined);
    return values.length > 0 ? `${ms(median(values))} (${ms(Math.min(...values))}–${ms(Math.max(...values))})` : '–';
  };
  const use = (name: string, pick: (r: RunResult) => number | undefined) => {
    const lazy = med('lazy', pick)!;
    const eager = med('eager', pick)!;
    return [name, spread('empty', pick), spread('lazy', pick), spread('eager', pick), ratio(lazy, eager)];
  };
  printTable(
    ['from → to', 'empty', 'shipped', 'core at activation', 'shipped ÷ eager'],
    [
      use('container clicked → first row (cold)', (r) => r.coldRows),
      use('container clicked → first row (warm)', (r) => r.warmRows),
      use('container clicked → Sessions list (cold)', (r) => r.coldSessions),
      use('container clicked → Sessions list (warm)', (r) => r.warmSessions),
      use('New Session → agent pick (warm)', (r) => r.newSession),
    ],
  );
  const loads = results.lazy.flatMap((r) => r.coreLoads);
  const eagerLoads = results.eager.flatMap((r) => r.coreLoads);
  console.log(
    `\nthe core's load as the extension logs it ("Core loaded in N ms"): shipped median ${ms(loads.length ? median(loads) : undefined)} ms (on first use), eager median ${ms(eagerLoads.length ? median(eagerLoads) : undefined)} ms (inside activation)`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
