import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, useWorkbench } from './workbench';

/**
 * A chat tab whose extension host is killed: VS Code restarts the host by itself (only for an installed
 * extension: a development host's crash stops it), keeps the tab's webview running, and calls no serializer.
 */
describe('a chat tab after its extension host was killed and restarted (real workbench, Chromium)', function () {
  this.timeout(300_000);
  let userData = '';
  const bench = useWorkbench(
    'multi-root',
    (paths) => (userData = paths.userData),
    (scratch) => {
      // Installed like a user's extension (the repository linked into the extensions folder).
      const extensionsDir = path.join(scratch, 'extensions');
      fs.mkdirSync(extensionsDir, { recursive: true });
      fs.symlinkSync(REPO_ROOT, path.join(extensionsDir, 'acp-workspace.acp-workspace-0.1.0'));
      return { developmentExtension: false, extensionsDir };
    },
  );

  it('says the session was interrupted, keeps a prompt sent there, and reopens the session with it on Reopen', async () => {
    const workbench = bench();
    const chat = await workbench.newChat('Reference Agent (offline)');
    const input = chat.locator('.prompt-input');
    await input.fill('Echo the first words');
    await input.press('Enter');
    await chat.locator('.entry.turn-end').first().waitFor({ timeout: 60_000 });

    const [hostPid, ...others] = extensionHosts(userData);
    assert.ok(hostPid !== undefined && others.length === 0, `one extension host of this code-server: ${[hostPid, ...others].join(', ')}`);
    const restarted = workbench.page.waitForEvent('console', {
      predicate: (message) => message.text().includes('Automatically restarting the remote extension host'),
      timeout: 60_000,
    });
    process.kill(hostPid, 'SIGKILL');
    await restarted;
    for (let i = 0; i < 600 && extensionHosts(userData).filter((pid) => pid !== hostPid).length === 0; i++) await workbench.page.waitForTimeout(100);

    // The user types in the old tab and sends: the message must not vanish.
    await input.fill('Echo the second words');
    await input.press('Enter');
    const banner = chat.locator('.interrupted', { hasText: 'interrupted' });
    await banner.waitFor({ timeout: 30_000 });
    await chat.locator('.status', { hasText: 'Interrupted' }).waitFor();
    assert.equal(await input.inputValue(), 'Echo the second words', 'the prompt is back in the box');
    assert.equal(await chat.locator('button.send').isDisabled(), true, 'nothing can be sent from the interrupted tab');
    await workbench.screenshot('chat-interrupted');

    await banner.locator('a.reopen', { hasText: 'Reopen' }).click();
    // A new tab takes the old one's place, reopens the session (its history replayed) with the text in the box.
    const reopened = await workbench.webview('.chat:not(:has(.interrupted)) .entry.user', 60_000);
    await reopened.locator('.status', { hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    await reopened.locator('.entry.user', { hasText: 'Echo the first words' }).waitFor({ timeout: 30_000 });
    assert.equal(await reopened.locator('.prompt-input').inputValue(), 'Echo the second words', 'what the user typed is in the new tab');
    assert.equal(await reopened.locator('.interrupted').count(), 0);
    const chatTabs = workbench.page.locator('.tabs-container .tab', { hasText: 'Reference Agent (offline)' });
    assert.equal(await chatTabs.count(), 1, 'the interrupted tab was replaced, not joined');
    // And it works: the prompt goes to the agent.
    const turns = await reopened.locator('.entry.turn-end').count();
    await reopened.locator('.prompt-input').press('Enter');
    await reopened.locator('.entry.user', { hasText: 'Echo the second words' }).waitFor({ timeout: 30_000 });
    for (let i = 0; i < 300 && (await reopened.locator('.entry.turn-end').count()) <= turns; i++) await workbench.page.waitForTimeout(100);
    assert.ok((await reopened.locator('.entry.turn-end').count()) > turns, 'the turn ended');
    // Neither host posted patches to a view that does not answer (issue 25 item 18 saw one warning a second).
    const logs = filesUnder(path.join(userData, 'logs')).filter((file) => file.endsWith('ACP Workspace.log'));
    assert.ok(logs.length > 0, 'the extension log is there');
    const late = logs.flatMap((file) => fs.readFileSync(file, 'utf8').split('\n')).filter((line) => line.includes('did not acknowledge a patch'));
    assert.deepEqual(late, [], 'no chat view left a patch unacknowledged');
  });
});

/** The extension hosts started by the code-server whose user data is `userData` (not another test run's). */
function extensionHosts(userData: string): number[] {
  const info = new Map<number, { parent: number; command: string }>();
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      info.set(pid, { parent, command: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ') });
    } catch {
      // gone, or not ours to read
    }
  }
  const servers = new Set([...info].filter(([, p]) => p.command.includes(userData)).map(([pid]) => pid));
  const underServer = (pid: number): boolean => {
    for (let p = info.get(pid)?.parent; p !== undefined && p > 1; p = info.get(p)?.parent) if (servers.has(p)) return true;
    return false;
  };
  return [...info].filter(([pid, p]) => /type=extensionHost/.test(p.command) && underServer(pid)).map(([pid]) => pid);
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
}
