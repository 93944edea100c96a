/**
 * Drives the real VS Code workbench (code-server) in Chromium like a person: activity bar, views,
 * Command Palette, quick picks, notifications; and saves checked screenshots.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { PNG } from 'pngjs';

import type * as Browser from '../../scripts/vscode-web/browser.mjs';
import type * as CodeServer from '../../scripts/vscode-web/codeServer.mjs';
import type * as Install from '../../scripts/vscode-web/install.mjs';
import type * as Processes from '../../scripts/vscode-web/processes.mjs';

type Web = {
  codeServer: typeof CodeServer;
  browser: typeof Browser;
  install: typeof Install;
  processes: typeof Processes;
};

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'screenshots');

let web: Web | undefined;
/** The tooling modules (ES modules) shared with the integration launcher and the demo. */
export async function tooling(): Promise<Web> {
  web ??= {
    codeServer: await import('../../scripts/vscode-web/codeServer.mjs'),
    browser: await import('../../scripts/vscode-web/browser.mjs'),
    install: await import('../../scripts/vscode-web/install.mjs'),
    processes: await import('../../scripts/vscode-web/processes.mjs'),
  };
  return web;
}

export interface WorkbenchOptions {
  /** Folder or `.code-workspace` to open. */
  readonly target: string;
  /** Scratch folder for code-server's data. */
  readonly scratch: string;
  /** Load the extension from the repository (the default) or only from `extensionsDir` (an installed .vsix). */
  readonly developmentExtension?: boolean;
  readonly extensionsDir?: string;
  readonly userSettings?: Record<string, unknown>;
  readonly env?: Record<string, string>;
  /** The display language (code-server's `--locale`). */
  readonly locale?: string;
  /** Load the extension from this folder instead of the repository (e.g. a copy with a test bundle). */
  readonly extensionPath?: string;
  /** Keep Workspace Trust on (default off), to see Restricted Mode. */
  readonly workspaceTrust?: boolean;
}

/** One code-server and one browser page showing it. */
export class Workbench {
  /** The browser's console errors and warnings, workbench and webview frames alike (the last 200): evidence when a test fails. */
  readonly console: string[] = [];

  private constructor(
    readonly page: Page,
    private readonly cleanup: () => Promise<void>,
    readonly url: string,
  ) {
    page.on('console', (message) => {
      if (message.type() !== 'error' && message.type() !== 'warning') return;
      this.console.push(`${new Date().toISOString()} ${message.type()}: ${message.text().slice(0, 500)}`);
      if (this.console.length > 200) this.console.shift();
    });
  }

  static async open(options: WorkbenchOptions): Promise<Workbench> {
    const { codeServer, browser } = await tooling();
    const server = await codeServer.startCodeServer({
      scratch: options.scratch,
      extensionsDir: options.extensionsDir,
      userSettings: options.userSettings,
      env: options.env,
      locale: options.locale,
      workspaceTrust: options.workspaceTrust,
    });
    let launched: Awaited<ReturnType<typeof browser.launchBrowser>> | undefined;
    try {
      launched = await browser.launchBrowser();
      // code-server registers a worker of its own (a PWA's, scope "/") that claims every page it can, webview
      // frames included: when it activates while the first webview of a fresh profile registers VS Code's
      // webview worker, that webview can wait for its worker forever and stay blank. It is not VS Code's; the
      // workbench and its webviews work without it (desktop VS Code has none).
      await launched.context.addInitScript(() => {
        const container = (globalThis as unknown as { navigator?: { serviceWorker?: { register(url: string | URL, options?: unknown): Promise<unknown> } } })
          .navigator?.serviceWorker;
        if (!container) return;
        const register = container.register.bind(container);
        container.register = (url, options) =>
          String(url).includes('/_static/out/browser/serviceWorker.js') ? new Promise(() => undefined) : register(url, options);
      });
      const page = await launched.context.newPage();
      const target = options.target.endsWith('.code-workspace') ? { workspace: options.target } : { folder: options.target };
      const url = codeServer.workbenchUrl(server.url, {
        ...target,
        ...(options.developmentExtension === false ? {} : { extensionDevelopmentPath: options.extensionPath ?? REPO_ROOT }),
      });
      await page.goto(url);
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      const close = launched.close;
      return new Workbench(
        page,
        async () => {
          await close();
          await server.stop();
        },
        url,
      );
    } catch (error) {
      await launched?.close();
      await server.stop();
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.cleanup();
  }

  /** Clicks the ACP entry of the activity bar and waits for its container to show. */
  async openAcpContainer(): Promise<Locator> {
    const tab = this.page.locator('.activitybar').getByRole('tab', { name: /^ACP/ });
    await tab.waitFor({ timeout: 30_000 });
    const sidebar = this.page.locator('#workbench\\.parts\\.sidebar');
    if (!(await sidebar.isVisible()) || !(await sidebar.getByText('ACP', { exact: false }).first().isVisible())) await tab.click();
    await sidebar.locator('.composite.title').getByText('ACP', { exact: false }).waitFor({ timeout: 30_000 });
    return sidebar;
  }

  /** The tree of a view by its title, e.g. "Agents". */
  viewTree(sidebar: Locator, title: string): Locator {
    return sidebar.locator('.pane', { has: this.page.locator('.pane-header', { hasText: title }) }).locator('.monaco-list');
  }

  /**
   * The document of the visible webview whose content has `selector` (a webview's document sits in two
   * nested iframes, and VS Code keeps webviews of hidden editors in the page).
   *
   * The frame returned is that webview's own iframe (by its unique name), not "the n-th webview of the page":
   * webviews come and go (a sidebar view opens, a tab is shown or hidden), and a position would then point at
   * another one. VS Code tears a hidden tab's webview down and makes a new iframe when the tab is shown again:
   * after that, ask again.
   */
  async webview(selector: string, timeoutMs = 30_000): Promise<FrameLocator> {
    const deadline = Date.now() + timeoutMs;
    const shown: string[] = [];
    for (;;) {
      shown.length = 0;
      const names = await this.page.locator('iframe.webview.ready').evaluateAll((frames) => frames.map((frame) => (frame as unknown as { name: string }).name));
      for (const name of names.reverse()) {
        const frame = this.page.locator(`iframe.webview.ready[name="${name}"]`);
        if (!(await frame.isVisible())) continue;
        const document = frame.contentFrame().locator('#active-frame').contentFrame();
        if ((await document.locator(selector).count()) > 0) return document;
        shown.push(
          (
            await document
              .locator('body')
              .innerText({ timeout: 1_000 })
              .catch(() => '(unreadable)')
          )
            .replace(/\s+/g, ' ')
            .slice(0, 80),
        );
      }
      if (Date.now() > deadline) {
        const all = await this.page.locator('iframe.webview').count();
        throw new Error(
          `no visible webview shows ${selector} (${all} webview iframes, ${names.length} ready; the visible ones show: ${JSON.stringify(shown)})`,
        );
      }
      await this.page.waitForTimeout(200);
    }
  }

  /**
   * Opens the Command Palette (F1) from the workbench, never from inside a webview: the keyboard is put on the
   * title bar first (the Command Center), so the palette gives it back there, at once, when it closes. From a
   * chat, VS Code gives it back to the active editor, the chat's webview, which takes it asynchronously (a
   * `focus` message into its frame); on a busy machine that lands after the quick input the command opened,
   * which then loses the keyboard and closes (microsoft/vscode#93950; seen in CI runs as a quick pick
   * "resolved to hidden" and a Save dialog gone). The test 'the Command Palette from a chat' holds that message
   * back to show it.
   */
  async openCommandPalette(): Promise<Locator> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await this.page.locator('.part.titlebar .command-center-quick-pick, .part.titlebar .action-label[tabindex="0"]').filter({ visible: true }).first().focus();
    await this.page.keyboard.press('F1');
    await input.waitFor({ timeout: 10_000 });
    return input;
  }

  /** The Command Palette (see {@link openCommandPalette}), `>Category: Title`, Enter. */
  async runCommand(title: string): Promise<void> {
    const row = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: title }).first();
    // A window still loading (a busy machine) may not list the extension's commands yet: like a person,
    // close the palette and look again, for up to a minute.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const input = await this.openCommandPalette();
      await input.fill(`>${title}`);
      try {
        await row.waitFor({ timeout: 5_000 });
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await input.press('Escape');
      }
    }
    await this.page.locator('.quick-input-widget .quick-input-box input').press('Enter');
  }

  /**
   * Picks an item of the open quick pick by its label. The quick pick a command shows may open a moment
   * after the Command Palette closes (the extension activating on a busy machine), so a filter typed into
   * the closing palette is typed again into the pick that replaced it; Enter is pressed only once the
   * input holds the label and the row shows. If the filter does not hold for half the time (seen a few times
   * on a loaded machine, with the row showing unfiltered), the row whose label is exactly `label` is clicked,
   * as a person would.
   */
  async pick(label: string, timeoutMs = 30_000): Promise<void> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    const rows = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    const row = rows.filter({ hasText: label }).first();
    const exact = rows
      .filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) }) })
      .first();
    const started = Date.now();
    const deadline = started + timeoutMs;
    let lastError: unknown;
    let lastValue: string | undefined;
    for (;;) {
      try {
        await input.waitFor({ timeout: 10_000 });
        if ((await input.inputValue()) !== label) await input.fill(label);
        await row.waitFor({ timeout: 2_000 });
        lastValue = await input.inputValue();
        if (lastValue === label) break;
        if (Date.now() > started + timeoutMs / 2 && (await exact.isVisible())) {
          await exact.click({ timeout: 5_000 });
          return;
        }
      } catch (error) {
        lastError = error;
      }
      if (Date.now() > deadline) {
        const shown = await rows.allInnerTexts().catch(() => ['(no quick input)']);
        const cause = lastError instanceof Error ? lastError.message.split('\n')[0] : String(lastError);
        throw new Error(
          `no quick pick row "${label}"; the rows: ${JSON.stringify(shown)}; the input last held ${JSON.stringify(lastValue)}; last error: ${cause}`,
          { cause: lastError },
        );
      }
    }
    await input.press('Enter');
  }

  /**
   * Developer: Reload Window, then waits for the new workbench. The new document is awaited from before the
   * command, and by its DOMContentLoaded: its `load` waits for every frame it made meanwhile, webviews included,
   * and on a loaded machine it came more than a minute after the workbench was up (or not at all).
   */
  async reloadWindow(): Promise<void> {
    const reloaded = this.page.waitForEvent('domcontentloaded', { timeout: 120_000 });
    await this.runCommand('Developer: Reload Window');
    await reloaded;
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  }

  /** ACP: New Session (or the command titled `commandTitle`), then the given agent. */
  async newSession(agent: string, commandTitle = 'ACP: New Session'): Promise<void> {
    await this.runCommand(commandTitle);
    await this.pick(agent);
  }

  /** A new session's chat with the given agent, the folders as proposed (OK): its webview, once it shows. */
  async newChat(agent: string): Promise<FrameLocator> {
    await this.newSession(agent);
    await this.page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' }).click({ timeout: 30_000 });
    return this.webview('.prompt-input');
  }

  /**
   * Saves a screenshot (of `region`, or the page) to test-results/screenshots/<name>.png and fails if it
   * is blank: a broken view must fail the test, not just produce a picture.
   */
  async screenshot(name: string, region?: Locator): Promise<string> {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const file = path.join(SCREENSHOT_DIR, `${name}.png`);
    const buffer = region ? await region.screenshot({ path: file }) : await this.page.screenshot({ path: file });
    assertNotBlank(buffer, name);
    return file;
  }
}

/**
 * A picture with content has many distinct colours and some contrast; a blank or unpainted area has one
 * or two. Checks the decoded pixels, not just the file.
 */
export function assertNotBlank(png: Buffer, name: string): void {
  const image = PNG.sync.read(png);
  const colours = new Set<number>();
  let min = 255;
  let max = 0;
  for (let i = 0; i < image.data.length; i += 4 * 7) {
    const r = image.data[i]!;
    const g = image.data[i + 1]!;
    const b = image.data[i + 2]!;
    colours.add((r << 16) | (g << 8) | b);
    const luma = (r * 299 + g * 587 + b * 114) / 1000;
    min = Math.min(min, luma);
    max = Math.max(max, luma);
  }
  assert.ok(image.width > 50 && image.height > 50, `${name}: the screenshot is ${image.width}×${image.height}`);
  assert.ok(colours.size >= 12, `${name}: only ${colours.size} distinct colours: the view looks blank`);
  assert.ok(max - min >= 60, `${name}: contrast ${Math.round(max - min)}: the view looks blank`);
}

/**
 * Mocha hooks for a suite on one workbench: a private copy of the fixture workspaces, code-server with the
 * extension under development, and afterwards a check that every process the suite started is gone.
 * Returns a getter for the workbench (valid inside tests).
 */
export interface WorkbenchPaths {
  /** The private copy of test/fixtures/workspaces. */
  readonly workspaces: string;
  /** code-server's user data folder (global storage is under User/globalStorage/). */
  readonly userData: string;
}

export function useWorkbench(
  target: 'multi-root' | 'single' | 'no folder' = 'multi-root',
  prepare?: (paths: WorkbenchPaths) => void,
  open?: (scratch: string) => Pick<WorkbenchOptions, 'locale' | 'extensionPath' | 'userSettings' | 'workspaceTrust' | 'developmentExtension' | 'extensionsDir'>,
): () => Workbench {
  const runId = randomUUID();
  let scratch: string | undefined;
  let workbench: Workbench | undefined;

  before(async () => {
    const { install } = await tooling();
    fs.mkdirSync(install.CACHE_DIR, { recursive: true });
    scratch = fs.mkdtempSync(path.join(install.CACHE_DIR, 'e2e-'));
    const workspaces = path.join(scratch, 'workspaces');
    fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'workspaces'), workspaces, { recursive: true, verbatimSymlinks: true });
    prepare?.({ workspaces, userData: path.join(scratch, 'server', 'user-data') });
    workbench = await Workbench.open({
      target:
        target === 'multi-root' ? path.join(workspaces, 'multi-root', 'multi-root.code-workspace') : target === 'single' ? path.join(workspaces, 'single') : '',
      scratch: path.join(scratch, 'server'),
      env: { [RUN_MARKER]: runId },
      ...open?.(scratch),
    });
  });

  afterEach(async function () {
    // What the window showed when a test failed (not checked for blankness: it is evidence, not a test).
    if (this.currentTest?.state !== 'failed' || !workbench) return;
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const name = `failed-${this.currentTest
      .fullTitle()
      .replace(/[^\w-]+/g, '-')
      .slice(0, 120)}.png`;
    await workbench.page.screenshot({ path: path.join(SCREENSHOT_DIR, name) }).catch(() => undefined);
    // A blank webview leaves no trace in the page: what the browser reported (a webview worker that failed, a
    // resource that did not load, an error in our script) is the evidence.
    console.log(`      the browser's last console errors and warnings:\n        ${workbench.console.slice(-30).join('\n        ') || '(none)'}`);
    const log = scratch && newestFile(path.join(scratch, 'server', 'user-data', 'logs'), (name) => name.endsWith('ACP Workspace.log'));
    if (log)
      console.log(
        `      the extension's log (${log}), its last lines:\n        ${fs.readFileSync(log, 'utf8').trimEnd().split('\n').slice(-40).join('\n        ')}`,
      );
  });

  after(async () => {
    await workbench?.close();
    const { processes } = await tooling();
    const leftovers = await processes.sweepMarkedProcessesAfter(RUN_MARKER, runId);
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    assert.deepEqual(leftovers, [], 'every process the UI tests started was stopped');
  });

  return () => {
    assert.ok(workbench, 'the workbench is open');
    return workbench;
  };
}

/** The most recently written file under `dir` whose name passes `wanted`, if any. */
function newestFile(dir: string, wanted: (name: string) => boolean): string | undefined {
  let newest: { file: string; at: number } | undefined;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!entry.isFile() || !wanted(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const at = fs.statSync(file).mtimeMs;
    if (!newest || at > newest.at) newest = { file, at };
  }
  return newest?.file;
}

/** Every process a test run starts inherits this variable, so leftovers can be found. */
export const RUN_MARKER = 'ACP_WS_TEST_RUN';
