import * as assert from 'node:assert/strict';
import type { RegistryAgent } from '../../../../src/agents/registry/types';
import type { GalleryAgent, GalleryState } from '../../../../src/sessions/agents/agentGallery';
import { GALLERY_LIMITS, HostToGallery } from '../../../../src/shared/agentGalleryProtocol';
import { agentLinks, galleryView, sessionAgentName, StatePacer, webLink, type PacerClock } from '../../../../src/sessions/agents/galleryView';

const registryAgent: RegistryAgent = {
  id: 'opencode',
  name: 'OpenCode',
  version: '1.3.0',
  description: 'The AI coding agent built for the terminal',
  repository: 'https://github.com/sst/opencode',
  website: 'javascript:alert(1)',
  authors: ['SST'],
  license: 'MIT',
  licenseUrl: 'file:///etc/passwd',
  icon: 'https://cdn.agentclientprotocol.com/registry/v1/latest/opencode.svg',
  distribution: { npx: { package: 'opencode-ai@1.3.0', args: ['acp'], env: {} } },
};

const entry: GalleryAgent = {
  agent: registryAgent,
  availability: [{ kind: 'npx', available: true }],
  installed: {
    id: 'opencode',
    name: 'OpenCode',
    version: '1.2.0',
    description: '',
    distribution: 'npx',
    command: 'npx',
    args: [],
    env: {},
    installedAt: 1,
    registryUrl: 'x',
  },
  update: '1.3.0',
  busy: { action: 'update', progress: { message: 'Downloading', fraction: 1.7 } },
  builtIn: 'opencode',
};

const state: GalleryState = {
  catalog: {
    url: 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json',
    source: 'network',
    fetchedAt: 5,
    problems: ['agents[3]: id is missing'],
  },
  agents: [entry],
  trusted: false,
  refreshing: true,
};

describe('Add Agent gallery: the state the webview gets', () => {
  it('validates against the protocol, keeps only http(s) links, bounds the progress fraction', () => {
    const view = galleryView(state);
    assert.equal(HostToGallery.safeParse({ type: 'state', state: view }).success, true);
    const agent = view.agents[0]!;
    assert.equal(agent.repository, 'https://github.com/sst/opencode');
    assert.equal(agent.website, undefined, 'a javascript: link is dropped');
    assert.equal(agent.licenseUrl, undefined, 'a file: link is dropped');
    assert.equal(agent.busy?.fraction, 1);
    assert.equal(agent.hasIcon, true);
    assert.deepEqual(agent.installed, { version: '1.2.0', distribution: 'npx' });
    assert.equal(agent.sessionAgent, 'opencode', 'New Session picks the built-in name');
    assert.deepEqual(view.catalog, {
      url: state.catalog.url,
      official: true,
      source: 'network',
      fetchedAt: 5,
      error: undefined,
      skipped: 1,
      problems: ['agents[3]: id is missing'],
    });
    assert.equal(view.trusted, false);
    assert.equal(view.refreshing, true);
  });

  it('cuts registry texts to the protocol’s bounds instead of failing the whole state', () => {
    const long: GalleryAgent = {
      agent: { ...registryAgent, name: 'n'.repeat(5000), description: 'd'.repeat(50_000), authors: Array.from({ length: 100 }, () => 'a'.repeat(1000)) },
      availability: [{ kind: 'binary', available: false, reason: 'r'.repeat(10_000) }],
      error: 'e'.repeat(10_000),
    };
    const view = galleryView({ ...state, agents: [long], catalog: { ...state.catalog, problems: Array.from({ length: 500 }, () => 'p') } });
    assert.equal(HostToGallery.safeParse({ type: 'state', state: view }).success, true);
    const agent = view.agents[0]!;
    assert.equal(agent.name.length, GALLERY_LIMITS.name);
    assert.ok(agent.name.endsWith('…'));
    assert.equal(agent.description.length, GALLERY_LIMITS.description);
    assert.equal(agent.authors.length, GALLERY_LIMITS.authors);
    assert.equal(view.catalog.skipped, 500);
    assert.equal(view.catalog.problems.length, GALLERY_LIMITS.problems);
    assert.equal(agent.sessionAgent, undefined, 'not installed: no New Session');
  });

  it('another registry is not called official', () => {
    assert.equal(galleryView({ ...state, catalog: { ...state.catalog, url: 'http://127.0.0.1:9/registry.json' } }).catalog.official, false);
    assert.equal(galleryView({ ...state, catalog: { ...state.catalog, url: '' } }).catalog.official, false);
  });

  it('the links a card may open are the agent’s own http(s) ones', () => {
    assert.deepEqual(agentLinks(entry), ['https://github.com/sst/opencode']);
    assert.equal(webLink('http://example.com/x'), 'http://example.com/x');
    for (const bad of ['javascript:alert(1)', 'command:workbench.action.terminal.new', 'vscode://file/etc/passwd', 'not a url', undefined])
      assert.equal(webLink(bad), undefined, String(bad));
  });

  it('New Session picks the installed agent by its built-in name, else its installed name', () => {
    assert.equal(sessionAgentName(entry), 'opencode');
    assert.equal(sessionAgentName({ ...entry, builtIn: undefined }), 'OpenCode');
    assert.equal(sessionAgentName({ ...entry, installed: undefined }), undefined);
  });
});

/** A clock the test moves by hand. */
class ManualClock implements PacerClock {
  time = 0;
  private timers: Array<{ at: number; callback: () => void; handle: number }> = [];
  private next = 1;
  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.next++;
    this.timers.push({ at: this.time + ms, callback, handle });
    return handle;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.handle !== handle);
  }
  advance(ms: number): void {
    this.time += ms;
    for (const timer of this.timers.filter((t) => t.at <= this.time)) {
      this.timers = this.timers.filter((t) => t !== timer);
      timer.callback();
    }
  }
  get pending(): number {
    return this.timers.length;
  }
}

describe('Add Agent gallery: state messages paced to ten a second', () => {
  it('sends the first change at once, gathers the next ones into one send at the end of the interval', () => {
    const clock = new ManualClock();
    let sent = 0;
    const pacer = new StatePacer(() => sent++, 100, clock);
    pacer.schedule();
    assert.equal(sent, 1, 'the first change goes out at once');
    for (let i = 0; i < 50; i++) {
      clock.advance(1);
      pacer.schedule();
    }
    assert.equal(sent, 1, 'fifty progress events within the interval: nothing more yet');
    clock.advance(49);
    assert.equal(sent, 1, 'still within the interval');
    clock.advance(1);
    assert.equal(sent, 2, 'one send at the end of the interval carries them all');
    clock.advance(1000);
    assert.equal(sent, 2, 'nothing changed since: nothing sent');
    pacer.schedule();
    assert.equal(sent, 3, 'a change after a quiet while goes out at once');
  });

  it('flush sends now and drops the pending send; cancel drops it', () => {
    const clock = new ManualClock();
    let sent = 0;
    const pacer = new StatePacer(() => sent++, 100, clock);
    pacer.schedule();
    pacer.schedule();
    assert.equal(clock.pending, 1);
    pacer.flush();
    assert.equal(sent, 2);
    assert.equal(clock.pending, 0);
    clock.advance(10);
    pacer.schedule();
    pacer.cancel();
    clock.advance(1000);
    assert.equal(sent, 2);
  });
});
