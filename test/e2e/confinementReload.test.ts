import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { useWorkbench } from './workbench';

/**
 * `acpWorkspace.sandbox: writes` across a real Reload Window (issue 24, item 4): the restored chat's agent is
 * started again by the restore, and it must still write in the session's primary folder (which needs no
 * grant) with its own tools and its own shell. Needs bubblewrap, like the integration tier's confinement tests.
 */
describe('a confined agent after Reload Window (real workbench, Chromium, bubblewrap)', function () {
  this.timeout(180_000);
  let workspaces = '';
  let userData = '';
  const bench = useWorkbench(
    'multi-root',
    (paths) => ({ workspaces, userData } = paths),
    () => ({ userSettings: { 'acpWorkspace.sandbox': 'writes' } }),
  );
  let chat: FrameLocator;
  const folder = (name: string) => path.join(workspaces, 'multi-root', name);

  before(async function () {
    if (process.platform !== 'linux') this.skip();
    chat = await bench().newChat('Reference Agent (offline)');
  });

  const turnEnds = () => chat.locator('.entry.turn-end').count();

  /** The agent writes `<name>` in the folder with its own file tool and `<name>.sh` with its own shell. */
  async function writeItself(folderName: string, name: string): Promise<{ tool: boolean; shell: boolean }> {
    const file = path.join(folder(folderName), name);
    const before = await turnEnds();
    const input = chat.locator('.prompt-input');
    await input.fill(`write-direct ${file} by the tool\nshell-direct echo by the shell > ${file}.sh`);
    await input.press('Enter');
    for (let i = 0; i < 600 && (await turnEnds()) <= before; i++) await bench().page.waitForTimeout(100);
    assert.ok((await turnEnds()) > before, 'the turn ended');
    return { tool: fs.existsSync(file), shell: fs.existsSync(`${file}.sh`) };
  }

  it('writes in its folders before the reload', async () => {
    await chat.locator('.chip.confinement', { hasText: 'Confined (writes)' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await writeItself('app', 'before-reload.txt'), { tool: true, shell: true }, 'the primary folder');
    assert.deepEqual(await writeItself('lib', 'before-reload.txt'), { tool: true, shell: true }, 'a shared folder');
  });

  it('still writes in them after Reload Window: the restored chat’s agent is confined to every folder of its session, the primary one included', async () => {
    await bench().reloadWindow();
    chat = await bench().webview('.prompt-input', 60_000);
    await chat.locator('.entry.info', { hasText: 'the agent replayed its history' }).waitFor({ timeout: 60_000 });
    await chat.locator('.chip.confinement', { hasText: 'Confined (writes)' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await writeItself('app', 'after-reload.txt'), { tool: true, shell: true }, 'the primary folder, after the reload');
    assert.deepEqual(await writeItself('lib', 'after-reload.txt'), { tool: true, shell: true }, 'a shared folder, after the reload');
    assert.equal(await chat.locator('.entry', { hasText: 'Read-only file system' }).count(), 0, 'no write was refused');
    await bench().screenshot('confined-after-reload');
  });

  it('says "restart to apply" in the chat header when acpWorkspace.sandbox changes, and its Restart Agent applies it', async () => {
    // A code-server window is a remote window: a machine-scoped setting comes from the Machine settings.
    const file = path.join(userData, 'Machine', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...settings, 'acpWorkspace.sandbox': 'off' }, null, 2));
    const hint = chat.locator('.stale', { hasText: 'restart to apply acpWorkspace.sandbox: off' });
    await hint.waitFor({ timeout: 30_000 });
    assert.equal(await chat.locator('.chip.confinement').innerText(), 'Confined (writes)', 'it runs as it was until restarted');
    await bench().screenshot('confinement-restart-to-apply', chat.locator('.chat-header'));
    const resumed = chat.locator('.entry.info', { hasText: 'Session resumed.' });
    const before = await resumed.count();
    await hint.locator('button', { hasText: 'Restart Agent' }).click();
    await chat.locator('.chip.confinement', { hasText: 'Not confined' }).waitFor({ timeout: 60_000 });
    await hint.waitFor({ state: 'detached', timeout: 30_000 });
    for (let i = 0; i < 600 && (await resumed.count()) <= before; i++) await bench().page.waitForTimeout(100);
    assert.ok((await resumed.count()) > before, 'the session was reopened on the restarted agent');
    assert.deepEqual(await writeItself('app', 'after-restart.txt'), { tool: true, shell: true }, 'the session goes on');
  });
});
