import * as assert from 'node:assert/strict';
import { actionAnnouncements, cardAction, catalogStatus, filterAgents, filterCounts, checkedAgo } from '../../../src/shared/agentGalleryModel';
import type { GalleryAgentView, GalleryCatalogView } from '../../../src/shared/agentGalleryProtocol';

function agent(id: string, extra: Partial<GalleryAgentView> = {}): GalleryAgentView {
  return { id, name: id, version: '1.0.0', description: '', authors: [], hasIcon: false, availability: [{ kind: 'npx', available: true }], ...extra };
}

const agents = [
  agent('claude-acp', {
    name: 'Claude Agent',
    description: 'ACP wrapper for Anthropic’s Claude',
    authors: ['Anthropic'],
    installed: { version: '0.1.0', distribution: 'npx' },
    update: '0.2.0',
  }),
  agent('goose', { name: 'goose', description: 'An open-source AI agent', authors: ['Block'] }),
  agent('opencode', {
    name: 'OpenCode',
    description: 'The AI coding agent built for the terminal',
    authors: ['SST'],
    installed: { version: '1.0.0', distribution: 'binary' },
  }),
];
const ids = (list: GalleryAgentView[]) => list.map((a) => a.id);

describe('Add Agent gallery: what it shows', () => {
  it('search matches id, name, description and authors, case-insensitively, every word somewhere', () => {
    assert.deepEqual(ids(filterAgents(agents, '', 'all')), ['claude-acp', 'goose', 'opencode']);
    assert.deepEqual(ids(filterAgents(agents, 'ANTHROPIC', 'all')), ['claude-acp']);
    assert.deepEqual(ids(filterAgents(agents, 'block', 'all')), ['goose']);
    assert.deepEqual(ids(filterAgents(agents, 'terminal sst', 'all')), ['opencode']);
    assert.deepEqual(ids(filterAgents(agents, 'claude-a', 'all')), ['claude-acp']);
    assert.deepEqual(ids(filterAgents(agents, 'agent', 'all')), ['claude-acp', 'goose', 'opencode']);
    assert.deepEqual(ids(filterAgents(agents, 'terminal block', 'all')), []);
  });

  it('filters installed agents and those with an update, together with the search', () => {
    assert.deepEqual(ids(filterAgents(agents, '', 'installed')), ['claude-acp', 'opencode']);
    assert.deepEqual(ids(filterAgents(agents, '', 'updates')), ['claude-acp']);
    assert.deepEqual(ids(filterAgents(agents, 'sst', 'updates')), []);
    assert.deepEqual(filterCounts(agents), { all: 3, installed: 2, updates: 1 });
  });

  it('the catalog line: fresh, offline with the date or the shipped list, no registry URL', () => {
    const now = Date.UTC(2025, 5, 1, 12);
    const base: GalleryCatalogView = {
      url: 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json',
      official: true,
      source: 'network',
      skipped: 0,
      problems: [],
    };
    assert.deepEqual(catalogStatus({ ...base, fetchedAt: now - 3 * 60_000 }, now), { kind: 'current', text: 'From the ACP Registry, checked 3 minutes ago' });
    assert.equal(
      catalogStatus({ ...base, url: 'http://127.0.0.1:8080/registry.json', official: false, fetchedAt: now }, now).text,
      'From 127.0.0.1:8080, checked just now',
    );
    const offline = catalogStatus({ ...base, source: 'cache', fetchedAt: now - 86_400_000, error: 'getaddrinfo ENOTFOUND' }, now);
    assert.equal(offline.kind, 'offline');
    assert.match(offline.text, /^Offline: the list from .+2025.+ \(getaddrinfo ENOTFOUND\)$/);
    assert.deepEqual(catalogStatus({ ...base, source: 'snapshot', error: 'timed out' }, now), {
      kind: 'offline',
      text: 'Offline: the list shipped with ACP Workspace (timed out)',
    });
    assert.equal(catalogStatus({ ...base, source: 'snapshot' }, now).text, 'The list shipped with ACP Workspace (not checked with the ACP Registry yet)');
    assert.equal(catalogStatus({ ...base, url: '', official: false, source: 'snapshot' }, now).kind, 'unset');
  });

  it('relative times: just now, minutes, hours, days, then the date', () => {
    const now = Date.UTC(2025, 5, 1, 12);
    assert.equal(checkedAgo(now - 10_000, now), 'just now');
    assert.equal(checkedAgo(now - 2 * 3600_000, now), '2 hours ago');
    assert.equal(checkedAgo(now - 86_400_000, now), 'yesterday');
    assert.match(checkedAgo(now - 30 * 86_400_000, now), /2025/);
  });

  it('a card offers install (the distributions that work), update, installed, progress, or nothing that works here', () => {
    assert.deepEqual(
      cardAction(
        agent('a', {
          availability: [
            { kind: 'binary', available: false, reason: 'no download for linux-aarch64' },
            { kind: 'npx', available: true },
            { kind: 'uvx', available: true },
          ],
        }),
      ),
      { kind: 'install', kinds: ['npx', 'uvx'] },
    );
    assert.deepEqual(cardAction(agent('a', { availability: [{ kind: 'uvx', available: false, reason: 'uv is not installed' }] })), { kind: 'unavailable' });
    assert.deepEqual(cardAction(agents[0]!), { kind: 'update', from: '0.1.0', to: '0.2.0' });
    assert.deepEqual(cardAction(agents[2]!), { kind: 'installed', version: '1.0.0' });
    assert.deepEqual(cardAction({ ...agents[0]!, busy: { action: 'update', message: 'Unpacking', fraction: 0.9 } }), {
      kind: 'busy',
      action: 'update',
      message: 'Unpacking',
      fraction: 0.9,
    });
  });

  it('says when an action ended: installed, updated, removed, failed (and nothing while it runs or when nothing ran)', () => {
    const busy = (a: GalleryAgentView, action: 'install' | 'update' | 'uninstall') => ({ ...a, busy: { action, message: '…' } });
    const goose = agents[1]!;
    const installed = { ...goose, installed: { version: '1.0.0', distribution: 'npx' as const } };
    assert.deepEqual(actionAnnouncements([busy(goose, 'install')], [installed]), ['goose 1.0.0 was installed.']);
    assert.deepEqual(actionAnnouncements([busy(goose, 'install')], [{ ...goose, error: 'Checksum mismatch' }]), ['goose: Checksum mismatch']);
    assert.deepEqual(actionAnnouncements([busy(goose, 'install')], [goose]), ['goose was not installed.']);
    assert.deepEqual(actionAnnouncements([busy(installed, 'uninstall')], [goose]), ['goose was removed.']);
    assert.deepEqual(
      actionAnnouncements([busy(agents[0]!, 'update')], [{ ...agents[0]!, installed: { version: '0.2.0', distribution: 'npx' }, update: undefined }]),
      ['Claude Agent was updated to 0.2.0.'],
    );
    assert.deepEqual(actionAnnouncements([busy(goose, 'install')], [busy(goose, 'install')]), []);
    assert.deepEqual(actionAnnouncements(agents, agents), []);
  });
});
