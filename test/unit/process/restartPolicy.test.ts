import * as assert from 'node:assert/strict';
import { RestartPolicy } from '../../../src/process/restartPolicy';

describe('RestartPolicy', () => {
  it('allows maxRestarts within the window, then refuses until old restarts age out', () => {
    const policy = new RestartPolicy({ maxRestarts: 3, windowMs: 60_000 });
    assert.equal(policy.allowRestart(0), true);
    assert.equal(policy.allowRestart(1_000), true);
    assert.equal(policy.allowRestart(2_000), true);
    assert.equal(policy.allowRestart(3_000), false);
    assert.equal(policy.allowRestart(59_999), false);
    assert.equal(policy.allowRestart(60_001), true, 'the first restart left the window');
    assert.match(policy.describeCap(), /stopped 4 times within 1 minute, so it is not restarted again/);
  });

  it('never restarts with a cap of zero', () => {
    assert.equal(new RestartPolicy({ maxRestarts: 0, windowMs: 1000 }).allowRestart(0), false);
  });
});
