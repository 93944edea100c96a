import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as Packaging from '../../scripts/package.mjs';
import { REPO_ROOT, RUN_MARKER, Workbench, tooling } from '../e2e/workbench';

describe('the packaged .vsix', function () {
  this.timeout(240_000);
  const runId = randomUUID();
  let packaging: typeof Packaging;
  let result: ReturnType<typeof Packaging.packageExtension>;
  let scratch: string;

  before(async () => {
    packaging = await import('../../scripts/package.mjs');
    // The test runner type-checked and linted already; this builds the production bundles and packages.
    result = packaging.packageExtension({ check: false });
    const { install } = await tooling();
    scratch = fs.mkdtempSync(path.join(install.CACHE_DIR, 'package-'));
  });

  after(async () => {
    const { processes } = await tooling();
    const leftovers = await processes.sweepMarkedProcessesAfter(RUN_MARKER, runId);
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    assert.deepEqual(leftovers, [], 'every process the packaging test started was stopped');
  });

  it('contains the bundles and what the manifest and README need, and nothing else', () => {
    assert.deepEqual(packaging.checkFiles(result.files), []);
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest['icon'], 'media/icon.png');
    for (const field of ['license', 'galleryBanner']) assert.ok(manifest[field], `${field} is set`);
    // No public repository yet: none is named, and the README's links are not pointed at a made-up one.
    for (const field of ['repository', 'homepage', 'bugs']) assert.equal(manifest[field], undefined, `${field} names no made-up address`);
    const kib = (name: string) => `${(result.sizes[name]! / 1024).toFixed(1)} KiB`;
    console.log(`      ${path.basename(result.vsix)}: ${kib('vsix')}; extension.js (activation) ${kib('dist/extension.js')}, core.js ${kib('dist/core.js')}`);
    assert.ok(result.sizes['vsix']! < 2 * 1024 * 1024, 'the package stays small');
    console.log(
      `      webviews: ${['history', 'review', 'chat'].map((view) => `${view}.js ${kib(`dist/webview/${view}.js`)} + .css ${kib(`dist/webview/${view}.css`)}`).join(', ')}`,
    );
    // Activation parses only dist/extension.js (the core loads on first use); each webview only its own files.
    assert.deepEqual(packaging.overBudget(result.sizes), [], 'every bundle within its budget');
  });

  it('ships a 128×128 PNG icon', () => {
    const png = fs.readFileSync(path.join(REPO_ROOT, 'media', 'icon.png'));
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.equal(png.readUInt32BE(16), 128);
    assert.equal(png.readUInt32BE(20), 128);
  });

  it('installs into VS Code like a user would, activates, runs an agent from the user settings (the offline reference agent) and chats with it', async () => {
    const { codeServer } = await tooling();
    const server = path.join(scratch, 'server');
    const installed = codeServer.installExtension({ scratch: server, vsix: result.vsix });
    assert.match(installed.output, /was successfully installed/);
    fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'workspaces'), path.join(scratch, 'workspaces'), { recursive: true, verbatimSymlinks: true });
    const workbench = await Workbench.open({
      target: path.join(scratch, 'workspaces', 'multi-root', 'multi-root.code-workspace'),
      scratch: server,
      developmentExtension: false,
      extensionsDir: installed.extensionsDir,
      env: { [RUN_MARKER]: runId },
    });
    try {
      const sidebar = await workbench.openAcpContainer();
      const rows = workbench.viewTree(sidebar, 'Agents').locator('.monaco-list-row');
      await rows.filter({ hasText: 'Reference Agent (offline)' }).waitFor({ timeout: 60_000 });
      await workbench.runCommand('ACP: Start Agent');
      await workbench.pick('Reference Agent (offline)');
      await rows
        .filter({ hasText: 'Reference Agent (offline)' })
        .locator('.label-description', { hasText: 'running · Reference Agent (offline) 1.0.0' })
        .waitFor({ timeout: 60_000 });
      await workbench.screenshot('installed-vsix', sidebar);
      await workbench.screenshot('installed-vsix-window');
      // The chat's webview assets load from the installed extension (CSP, local resource roots).
      await workbench.newSession('Reference Agent (offline)');
      await workbench.page.locator('.quick-input-widget .quick-input-action .monaco-button', { hasText: 'OK' }).click({ timeout: 30_000 });
      const chat = await workbench.webview('.prompt-input', 60_000);
      await chat.locator('.prompt-input').fill('hello from the package');
      await chat.locator('.prompt-input').press('Enter');
      await chat.locator('.entry.agent', { hasText: 'Echo: hello from the package' }).waitFor({ timeout: 60_000 });
      const iconFont = await chat.locator('body').evaluate(async () => {
        type Face = { family: string; status: string };
        const fonts = (globalThis as unknown as { document: { fonts: Iterable<Face> & { ready: Promise<unknown> } } }).document.fonts;
        await fonts.ready;
        return [...fonts].filter((f) => f.family.replace(/"/g, '') === 'codicon').map((f) => f.status);
      });
      assert.deepEqual(iconFont, ['loaded'], 'the icon font loads');
    } finally {
      await workbench.close();
    }
  });

  it('leaves no agent behind when the extension host is killed, even one that ignores its input closing and SIGTERM', async () => {
    const { codeServer } = await tooling();
    const [bundle] = codeServer.REFERENCE_AGENT_SETTING.args;
    const server = path.join(scratch, 'server-stubborn');
    const installed = codeServer.installExtension({ scratch: server, vsix: result.vsix });
    const workspace = path.join(scratch, 'workspaces', 'single');
    if (!fs.existsSync(workspace))
      fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'workspaces'), path.join(scratch, 'workspaces'), { recursive: true, verbatimSymlinks: true });
    const workbench = await Workbench.open({
      target: workspace,
      scratch: server,
      developmentExtension: false,
      extensionsDir: installed.extensionsDir,
      env: { [RUN_MARKER]: runId },
      // Like codex-acp and claude-code-acp: it keeps running when its input closes and when asked to stop.
      userSettings: {
        'acpWorkspace.agents': [{ name: 'Stubborn Agent', command: '${node}', args: [bundle, '--fault', 'ignore-stdin-close,ignore-sigterm'] }],
      },
    });
    try {
      const sidebar = await workbench.openAcpContainer();
      const row = workbench.viewTree(sidebar, 'Agents').locator('.monaco-list-row', { hasText: 'Stubborn Agent' });
      await row.waitFor({ timeout: 60_000 });
      await workbench.runCommand('ACP: Start Agent');
      await workbench.pick('Stubborn Agent');
      // "running", not "not running" (the row shows before the agent starts).
      await row.locator('.label-description', { hasText: /(^|· )running/ }).waitFor({ timeout: 60_000 });
      // The agent itself, not its watchdog (a shell whose command line names the agent too).
      const agentPid = (await tooling()).processes
        .markedProcesses(RUN_MARKER, runId)
        .find((p) => p.command.includes('ignore-sigterm') && !p.command.startsWith('/bin/sh'))?.pid;
      assert.ok(agentPid, 'the stubborn agent runs');
      // The extension host (the agent's parent) dies without a chance to clean up, as in a crash or kill -9.
      const hostPid = parentOf(agentPid);
      assert.ok(
        hostPid && /extensionHost|bootstrap-fork/.test(commandOf(hostPid)),
        `the agent's parent is the extension host: ${hostPid && commandOf(hostPid)}`,
      );
      process.kill(hostPid, 'SIGKILL');
      const deadline = Date.now() + 20_000;
      while (running(agentPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(!running(agentPid), 'the agent ended with the extension host');
    } finally {
      await workbench.close();
    }
  });
});

/** `/proc/<pid>/stat` after the command name: state, parent, … (undefined when the process is gone). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Still running: there, and not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

function parentOf(pid: number): number | undefined {
  const parent = Number(statFields(pid)?.[1]);
  return Number.isInteger(parent) && parent > 1 ? parent : undefined;
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}
