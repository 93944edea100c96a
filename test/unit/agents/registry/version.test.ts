import * as assert from 'node:assert/strict';
import { compareVersions, isNewer } from '../../../../src/agents/registry/version';

describe('ACP Registry versions', () => {
  it("orders versions as semver does (the spec's own example chain)", () => {
    const chain = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
      '10.0.0',
    ];
    for (let i = 0; i < chain.length; i++) {
      for (let j = 0; j < chain.length; j++) assert.equal(Math.sign(compareVersions(chain[i]!, chain[j]!)), Math.sign(i - j), `${chain[i]} vs ${chain[j]}`);
    }
  });

  it('compares numbers as numbers, however large, and ignores build metadata', () => {
    assert.ok(compareVersions('0.10.155', '0.10.99') > 0);
    assert.ok(compareVersions('3000.6.7', '2698.3.0') > 0);
    assert.ok(compareVersions('99999999999999999999.0.0', '99999999999999999998.0.0') > 0);
    assert.equal(compareVersions('1.2.3+build.5', '1.2.3+other'), 0);
    assert.equal(compareVersions('v1.2.3', '1.2.3'), 0);
    assert.ok(compareVersions('2026.10.01', '2026.8.11') > 0);
  });

  it('sorts garbage below every version and never throws', () => {
    for (const junk of ['', 'latest', '1.2', '1.2.3.4', 'x.y.z', '1.2.3-', '1.2.3-a..b', '🙂']) {
      assert.ok(compareVersions(junk, '0.0.0') < 0, junk);
      assert.ok(compareVersions('0.0.0-alpha', junk) > 0, junk);
      assert.equal(compareVersions(junk, junk), 0, junk);
    }
    assert.ok(compareVersions('abc', 'abd') < 0);
  });

  it('says whether the registry lists a newer version than the installed one', () => {
    assert.equal(isNewer('0.85.1', '0.70.0'), true);
    assert.equal(isNewer('0.85.1', '0.85.1'), false);
    assert.equal(isNewer('0.85.2-preview.22', '0.85.1'), true);
    assert.equal(isNewer('0.85.1', '0.85.2-preview.22'), false);
    assert.equal(isNewer('1.0.0', '1.0.0-rc.1'), true);
    assert.equal(isNewer('garbage', '1.0.0'), false);
    assert.equal(isNewer('1.0.0', 'garbage'), true);
  });
});
