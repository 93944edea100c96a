import * as assert from 'node:assert/strict';
import { GALLERY_LIMITS, GalleryToHost, HostToGallery, type GalleryView } from '../../../src/shared/agentGalleryProtocol';

const view: GalleryView = {
  catalog: {
    url: 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json',
    official: true,
    source: 'network',
    fetchedAt: 1,
    skipped: 0,
    problems: [],
  },
  agents: [
    {
      id: 'opencode',
      name: 'opencode',
      version: '1.2.3',
      description: 'An agent',
      authors: ['SST'],
      license: 'MIT',
      repository: 'https://github.com/sst/opencode',
      hasIcon: true,
      availability: [
        { kind: 'binary', available: true },
        { kind: 'npx', available: false, reason: 'Node.js is not installed' },
      ],
      installed: { version: '1.2.0', distribution: 'binary' },
      update: '1.2.3',
      busy: { action: 'update', message: 'Downloading', fraction: 0.5 },
      sessionAgent: 'opencode',
    },
  ],
  trusted: true,
  refreshing: false,
};

describe('Add Agent gallery protocol', () => {
  it('accepts the whole state and an image icon from the host', () => {
    assert.equal(HostToGallery.safeParse({ type: 'state', state: view }).success, true);
    assert.equal(HostToGallery.safeParse({ type: 'icon', id: 'opencode', dataUri: 'data:image/svg+xml;base64,PHN2Zy8+' }).success, true);
  });

  it('refuses an icon that is not an image data URL (a remote URL, HTML, a script)', () => {
    for (const dataUri of [
      'https://example.com/icon.svg',
      'data:text/html;base64,PHNjcmlwdD4=',
      'javascript:alert(1)',
      `data:image/png;base64,${'A'.repeat(GALLERY_LIMITS.dataUri)}`,
    ]) {
      assert.equal(HostToGallery.safeParse({ type: 'icon', id: 'x', dataUri }).success, false, dataUri.slice(0, 40));
    }
  });

  it('refuses a state with a progress fraction out of 0..1, an unknown distribution or a text over its bound', () => {
    const agent = view.agents[0]!;
    const bad = [
      { ...agent, busy: { action: 'install', message: 'x', fraction: 1.5 } },
      { ...agent, availability: [{ kind: 'docker', available: true }] },
      { ...agent, description: 'x'.repeat(GALLERY_LIMITS.description + 1) },
      { ...agent, authors: 'SST' },
    ];
    for (const a of bad)
      assert.equal(HostToGallery.safeParse({ type: 'state', state: { ...view, agents: [a] } }).success, false, JSON.stringify(a).slice(0, 80));
  });

  it('accepts every verb of the webview', () => {
    const verbs = [
      { type: 'ready' },
      { type: 'install', id: 'opencode' },
      { type: 'install', id: 'opencode', kind: 'npx' },
      { type: 'uninstall', id: 'opencode' },
      { type: 'cancel', id: 'opencode' },
      { type: 'refresh' },
      { type: 'openLink', id: 'opencode', url: 'https://github.com/sst/opencode' },
      { type: 'startSession', id: 'opencode' },
      { type: 'icons', ids: ['opencode', 'goose'] },
    ];
    for (const verb of verbs) assert.equal(GalleryToHost.safeParse(verb).success, true, verb.type);
  });

  it('refuses bad verbs: unknown type, missing or non-string id, unknown distribution, too many icons, an overlong id', () => {
    const bad: unknown[] = [
      { type: 'delete', id: 'opencode' },
      { type: 'install' },
      { type: 'install', id: 42 },
      { type: 'install', id: 'opencode', kind: 'docker' },
      { type: 'openLink', id: 'opencode' },
      { type: 'icons', ids: Array.from({ length: GALLERY_LIMITS.iconIds + 1 }, (_, i) => `a${i}`) },
      { type: 'uninstall', id: 'x'.repeat(GALLERY_LIMITS.id + 1) },
      'install',
      null,
    ];
    for (const message of bad) assert.equal(GalleryToHost.safeParse(message).success, false, JSON.stringify(message)?.slice(0, 60));
  });
});
