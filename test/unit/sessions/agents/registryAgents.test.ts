import * as assert from 'node:assert/strict';
import type {
  AgentInstaller,
  Availability,
  InstalledAgent,
  InstallOptions,
  RegistryAgent,
  RegistryCatalog,
  RegistrySource,
} from '../../../../src/agents/registry/types';
import { Emitter } from '../../../../src/common/events';
import { RegistryAgents, restrictedInstallMessage } from '../../../../src/sessions/agents/registryAgents';
import { updatesToAnnounce } from '../../../../src/sessions/agents/registryUpdates';

function entry(id: string, version: string, more: Partial<RegistryAgent> = {}): RegistryAgent {
  return {
    id,
    name: id,
    version,
    description: `${id} agent`,
    authors: ['Someone'],
    distribution: { npx: { package: `${id}@${version}`, args: [], env: {} } },
    ...more,
  };
}

/** A catalog the test sets, refreshed when the test says so. */
class FakeSource implements RegistrySource {
  private readonly emitter = new Emitter<RegistryCatalog>();
  readonly onDidChange = this.emitter.event;
  refreshes = 0;
  nextRefresh: ((catalog: RegistryCatalog) => void) | undefined;
  constructor(public catalog: RegistryCatalog) {}
  current(): RegistryCatalog {
    return this.catalog;
  }
  refresh(): Promise<RegistryCatalog> {
    this.refreshes++;
    return new Promise((resolve) => {
      this.nextRefresh = (catalog) => {
        this.set(catalog);
        resolve(catalog);
      };
    });
  }
  set(catalog: RegistryCatalog): void {
    this.catalog = catalog;
    this.emitter.fire(catalog);
  }
}

/** Installs when the test lets it: `pending` holds each running install's controls. */
class FakeInstaller implements AgentInstaller {
  private readonly emitter = new Emitter<void>();
  readonly onDidChange = this.emitter.event;
  readonly records = new Map<string, InstalledAgent>();
  readonly pending = new Map<string, { options: InstallOptions; finish: () => void; fail: (error: Error) => void }>();
  availabilityAsked = 0;
  uninstalled: string[] = [];
  installed(): readonly InstalledAgent[] {
    return [...this.records.values()];
  }
  find(id: string): InstalledAgent | undefined {
    return this.records.get(id);
  }
  availability(agent: RegistryAgent): Promise<readonly Availability[]> {
    this.availabilityAsked++;
    return Promise.resolve([{ kind: 'npx', available: agent.id !== 'nowhere', ...(agent.id === 'nowhere' ? { reason: 'Node.js is not installed' } : {}) }]);
  }
  install(agent: RegistryAgent, options: InstallOptions = {}): Promise<InstalledAgent> {
    return new Promise((resolve, reject) => {
      options.signal?.addEventListener('abort', () => reject(new Error('aborted')));
      this.pending.set(agent.id, {
        options,
        finish: () => {
          const record = record_(agent);
          this.records.set(agent.id, record);
          this.pending.delete(agent.id);
          this.emitter.fire();
          resolve(record);
        },
        fail: (error) => {
          this.pending.delete(agent.id);
          reject(error);
        },
      });
    });
  }
  uninstall(id: string): Promise<void> {
    this.uninstalled.push(id);
    this.records.delete(id);
    this.emitter.fire();
    return Promise.resolve();
  }
}

function record_(agent: RegistryAgent): InstalledAgent {
  return {
    id: agent.id,
    name: agent.name,
    version: agent.version,
    description: agent.description,
    distribution: 'npx',
    command: 'npx',
    args: ['--yes', `${agent.id}@${agent.version}`],
    env: {},
    installedAt: 1,
    registryUrl: 'https://example.test/registry.json',
  };
}

function catalog(agents: RegistryAgent[], more: Partial<RegistryCatalog> = {}): RegistryCatalog {
  return { url: 'https://example.test/registry.json', agents, problems: [], source: 'network', fetchedAt: 1_000, ...more };
}

/** A simple numeric comparison (the real one is version.ts's `isNewer`). */
const isNewer = (candidate: string, installed: string) => {
  const a = candidate.split('.').map(Number);
  const b = installed.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return false;
};

/** Resolves at the next change event for which `test` holds. */
function until(service: RegistryAgents, test: () => boolean): Promise<void> {
  if (test()) return Promise.resolve();
  return new Promise((resolve) => {
    const listener = service.onDidChange(() => {
      if (!test()) return;
      listener.dispose();
      resolve();
    });
  });
}

describe('RegistryAgents (the gallery over the registry catalog and the installer)', () => {
  let source: FakeSource;
  let installer: FakeInstaller;
  let trusted: boolean;
  let service: RegistryAgents;
  let now: number;
  let url: string;

  beforeEach(() => {
    url = 'https://example.test/registry.json';
    source = new FakeSource(
      catalog([entry('claude-acp', '1.0.0', { icon: 'https://example.test/claude.svg' }), entry('opencode', '2.0.0'), entry('nowhere', '0.1.0')]),
    );
    installer = new FakeInstaller();
    trusted = true;
    now = 1_000;
    service = new RegistryAgents({
      source,
      registryUrl: () => url,
      installer,
      icons: { dataUri: (url) => Promise.resolve(url.endsWith('.svg') ? 'data:image/svg+xml;base64,PHN2Zz4=' : undefined) },
      isTrusted: () => trusted,
      builtIns: new Map([['claude-acp', 'Claude Code']]),
      isNewer,
      now: () => now,
    });
  });
  afterEach(() => service.dispose());

  const agentOf = (id: string) => service.state().agents.find((a) => a.agent.id === id);

  it('shows the catalog with what works here (asked once per entry), the built-in it backs and the catalog status', async () => {
    const first = service.state();
    assert.deepEqual(
      first.agents.map((a) => a.agent.id),
      ['claude-acp', 'opencode', 'nowhere'],
    );
    assert.deepEqual(first.catalog, { url: 'https://example.test/registry.json', source: 'network', problems: [], fetchedAt: 1_000 });
    assert.equal(first.trusted, true);
    assert.equal(first.refreshing, false);
    await until(service, () => agentOf('nowhere')!.availability.length > 0);
    await until(service, () => service.state().agents.every((a) => a.availability.length > 0));
    assert.deepEqual(agentOf('nowhere')!.availability, [{ kind: 'npx', available: false, reason: 'Node.js is not installed' }]);
    assert.equal(agentOf('claude-acp')!.builtIn, 'Claude Code');
    assert.equal(agentOf('opencode')!.builtIn, undefined);
    service.state();
    assert.equal(installer.availabilityAsked, 3, 'the availability of each entry is asked once');
  });

  it('installs with progress announced at most once per interval, then shows it installed', async () => {
    let changes = 0;
    service.onDidChange(() => changes++);
    const done = service.install('opencode');
    assert.deepEqual(agentOf('opencode')!.busy, { action: 'install', progress: { message: 'Installing opencode…' } });
    const run = installer.pending.get('opencode')!;
    const before = changes;
    for (let i = 1; i <= 500; i++) run.options.onProgress?.({ message: `Downloading ${i}`, fraction: i / 500 });
    assert.equal(changes, before, 'progress alone is not announced synchronously');
    await until(service, () => agentOf('opencode')!.busy?.progress.message === 'Downloading 500');
    assert.ok(changes - before <= 2, `500 progress reports became ${changes - before} announcements`);
    assert.equal(agentOf('opencode')!.busy?.progress.fraction, 1);
    run.finish();
    await done;
    const after = agentOf('opencode')!;
    assert.equal(after.busy, undefined);
    assert.equal(after.installed?.version, '2.0.0');
    assert.equal(after.error, undefined);
  });

  it('runs one action per agent at a time', async () => {
    const first = service.perform('opencode', 'install');
    assert.deepEqual(await service.perform('opencode', 'install'), { kind: 'busy' });
    assert.deepEqual(await service.perform('opencode', 'uninstall'), { kind: 'busy' });
    installer.pending.get('opencode')!.finish();
    assert.deepEqual(await first, { kind: 'done' });
  });

  it('cancels a running install with nothing recorded and no error shown', async () => {
    const outcome = service.perform('opencode', 'install');
    service.cancel('opencode');
    assert.deepEqual(await outcome, { kind: 'cancelled' });
    assert.equal(agentOf('opencode')!.installed, undefined);
    assert.equal(agentOf('opencode')!.error, undefined);
    assert.equal(agentOf('opencode')!.busy, undefined);
  });

  it("cancels through the caller's signal too (a command's cancellable progress)", async () => {
    const controller = new AbortController();
    const outcome = service.perform('opencode', 'install', undefined, controller.signal);
    controller.abort();
    assert.deepEqual(await outcome, { kind: 'cancelled' });
  });

  it('keeps a failure on its agent in words, and clears it with the next action', async () => {
    const outcome = service.perform('opencode', 'install');
    installer.pending.get('opencode')!.fail(new Error('The checksum of opencode-linux.tar.gz is wrong: expected abc, got def.'));
    assert.deepEqual(await outcome, { kind: 'failed', message: 'The checksum of opencode-linux.tar.gz is wrong: expected abc, got def.' });
    assert.equal(agentOf('opencode')!.error, 'The checksum of opencode-linux.tar.gz is wrong: expected abc, got def.');
    const again = service.install('opencode');
    assert.equal(agentOf('opencode')!.error, undefined);
    installer.pending.get('opencode')!.finish();
    await again;
    assert.equal(agentOf('opencode')!.error, undefined);
  });

  it('updates an installed agent when the registry lists a newer version, and lists it among the updates', async () => {
    installer.records.set('opencode', record_(entry('opencode', '1.9.0')));
    assert.deepEqual(service.updates(), [{ id: 'opencode', name: 'opencode', installed: '1.9.0', available: '2.0.0' }]);
    assert.equal(service.updateFor('opencode'), '2.0.0');
    assert.equal(agentOf('opencode')!.update, '2.0.0');
    const done = service.install('opencode');
    assert.equal(agentOf('opencode')!.busy?.action, 'update');
    assert.equal(agentOf('opencode')!.busy?.progress.message, 'Updating opencode…');
    installer.pending.get('opencode')!.finish();
    await done;
    assert.deepEqual(service.updates(), []);
    assert.equal(agentOf('opencode')!.update, undefined);
    installer.records.set('claude-acp', record_(entry('claude-acp', '1.0.0')));
    assert.equal(service.updateFor('claude-acp'), undefined, 'the same version is no update');
  });

  it('refuses to install or update in Restricted Mode, with the reason on the agent, and still uninstalls', async () => {
    trusted = false;
    installer.records.set('claude-acp', record_(entry('claude-acp', '0.9.0')));
    assert.deepEqual(await service.perform('opencode', 'install'), { kind: 'failed', message: restrictedInstallMessage() });
    assert.deepEqual(await service.perform('claude-acp', 'install'), { kind: 'failed', message: restrictedInstallMessage() });
    assert.equal(installer.pending.size, 0, 'the installer was not asked');
    assert.equal(agentOf('opencode')!.error, restrictedInstallMessage());
    assert.match(restrictedInstallMessage(), /^Agents are not installed in Restricted Mode: /);
    assert.equal(service.state().trusted, false);
    assert.deepEqual(await service.perform('claude-acp', 'uninstall'), { kind: 'done' });
    assert.deepEqual(installer.uninstalled, ['claude-acp']);
  });

  it('says so for an agent the registry does not list or one that is not installed', async () => {
    assert.deepEqual(await service.perform('ghost', 'install'), { kind: 'failed', message: 'The ACP Registry does not list an agent with the id "ghost".' });
    assert.deepEqual(await service.perform('opencode', 'uninstall'), { kind: 'failed', message: 'opencode is not installed.' });
  });

  it('keeps installed agents the catalog no longer lists, so they can be uninstalled', async () => {
    installer.records.set('retired', record_(entry('retired', '3.0.0')));
    const retired = agentOf('retired')!;
    assert.equal(retired.installed?.version, '3.0.0');
    assert.equal(retired.agent.name, 'retired');
    await service.uninstall('retired');
    assert.equal(agentOf('retired'), undefined);
  });

  it('refreshes once for concurrent callers, says it is refreshing, and asks what works here again', async () => {
    await until(service, () => service.state().agents.every((a) => a.availability.length > 0));
    const asked = installer.availabilityAsked;
    const one = service.refresh();
    const two = service.refresh();
    assert.equal(source.refreshes, 1);
    assert.equal(service.state().refreshing, true);
    source.nextRefresh!(catalog([entry('opencode', '2.1.0')], { fetchedAt: 5_000 }));
    await Promise.all([one, two]);
    assert.equal(service.state().refreshing, false);
    assert.deepEqual(
      service.state().agents.map((a) => `${a.agent.id} ${a.agent.version}`),
      ['opencode 2.1.0'],
    );
    await until(service, () => agentOf('opencode')!.availability.length > 0);
    assert.equal(installer.availabilityAsked, asked + 1);
  });

  it('refreshes when due: never fetched or older than the maximum age', async () => {
    now = 1_000 + 60_000;
    await service.refreshIfDue();
    assert.equal(source.refreshes, 0, 'fetched a minute ago');
    now = 1_000 + 25 * 60 * 60 * 1000;
    const due = service.refreshIfDue();
    assert.equal(source.refreshes, 1, 'fetched more than a day ago');
    source.nextRefresh!(catalog([], { fetchedAt: now }));
    await due;
    source.set(catalog([], { source: 'snapshot', fetchedAt: undefined }));
    void service.refreshIfDue();
    assert.equal(source.refreshes, 2, 'never fetched');
  });

  it('shows no catalog and asks nothing when the registry setting is empty; installed agents stay', async () => {
    installer.records.set('opencode', record_(entry('opencode', '1.0.0')));
    let agentChanges = 0;
    service.onDidChangeAgents(() => agentChanges++);
    url = '';
    await service.refresh();
    assert.equal(source.refreshes, 0);
    assert.ok(agentChanges > 0, 'the agent list is told');
    const state = service.state();
    assert.deepEqual(state.catalog, { url: '', source: 'snapshot', problems: [] });
    assert.deepEqual(
      state.agents.map((a) => a.agent.id),
      ['opencode'],
    );
    assert.deepEqual(service.listInput().catalog, []);
    assert.deepEqual(service.updates(), []);
    assert.equal((await service.perform('claude-acp', 'install')).kind, 'failed');
  });

  it("gives an agent's icon as a data URI, undefined without one", async () => {
    assert.equal(await service.icon('claude-acp'), 'data:image/svg+xml;base64,PHN2Zz4=');
    assert.equal(await service.icon('opencode'), undefined);
    assert.equal(await service.icon('ghost'), undefined);
  });
});

describe('registry updates to announce', () => {
  const update = (id: string, installed: string, available: string) => ({ id, name: id, installed, available });

  it('announces each new version once, and forgets agents without an update', () => {
    const first = updatesToAnnounce([update('opencode', '1.2.3', '1.3.0'), update('goose', '1.0.0', '1.1.0')], undefined);
    assert.deepEqual(
      first.announce.map((u) => u.id),
      ['opencode', 'goose'],
    );
    const second = updatesToAnnounce([update('opencode', '1.2.3', '1.3.0'), update('goose', '1.0.0', '1.1.0')], first.record);
    assert.deepEqual(second.announce, []);
    const third = updatesToAnnounce([update('opencode', '1.2.3', '1.4.0')], second.record);
    assert.deepEqual(
      third.announce.map((u) => `${u.id} ${u.available}`),
      ['opencode 1.4.0'],
    );
    assert.deepEqual(third.record, { opencode: '1.4.0' });
  });

  it('reads a damaged record as empty', () => {
    assert.deepEqual(updatesToAnnounce([update('a', '1', '2')], { a: 7 }).announce.length, 1);
    assert.deepEqual(updatesToAnnounce([update('a', '1', '2')], 'nonsense').announce.length, 1);
  });
});
