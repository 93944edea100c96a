import * as l10n from '@vscode/l10n';
import * as assert from 'node:assert/strict';
import { relativeTime } from '../../../src/shared/relativeTime';

describe('relativeTime (every webview’s "3 minutes ago")', () => {
  const now = Date.UTC(2025, 5, 1, 12);
  const older = (ms: number) => `on ${new Date(ms).toISOString().slice(0, 10)}`;
  afterEach(() => l10n.config({ contents: {} }));

  it('just now, minutes, hours, days, then the caller’s date, long or short', () => {
    assert.equal(relativeTime(now - 10_000, now, { older }), 'just now');
    assert.equal(relativeTime(now - 2 * 3600_000, now, { older }), '2 hours ago');
    assert.equal(relativeTime(now - 86_400_000, now, { older }), 'yesterday');
    assert.equal(relativeTime(now - 30 * 86_400_000, now, { older }), 'on 2025-05-02');
    assert.equal(relativeTime(now - 3 * 60_000, now, { short: true, older }), '3 min. ago');
  });

  it('is localized in the short style of the Sessions view too (its "just now" was English whatever the language)', () => {
    l10n.config({ contents: { 'just now': '⟦just now⟧' } });
    assert.equal(relativeTime(now - 10_000, now, { older }), '⟦just now⟧');
    assert.equal(relativeTime(now - 10_000, now, { short: true, older }), '⟦just now⟧');
  });
});
