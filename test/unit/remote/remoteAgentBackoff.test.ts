import * as assert from 'node:assert/strict';
import { Backoff } from '../../../src/remote/backoff';

describe('RemoteAgent backoff', () => {
  const t0 = 1_000_000;

  it('doubles from 1 s and stays at 30 s, without jitter in the middle of its range', () => {
    const backoff = new Backoff({ random: () => 0.5, maxAttempts: 8, giveUpAfterMs: Number.MAX_SAFE_INTEGER });
    const waits: Array<number | undefined> = [];
    for (let i = 0; i < 9; i++) waits.push(backoff.next(t0));
    assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, undefined]);
    assert.equal(backoff.attempts, 8);
  });

  it('varies each wait by at most a fifth either way, never past the cap', () => {
    for (const random of [0, 0.25, 0.999999]) {
      const backoff = new Backoff({ random: () => random, giveUpAfterMs: Number.MAX_SAFE_INTEGER });
      const bases = [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000];
      for (const base of bases) {
        const wait = backoff.next(t0)!;
        assert.ok(wait >= base * 0.8 - 1 && wait <= Math.min(30000, base * 1.2 + 1), `${wait} for ${base} with random ${random}`);
      }
      assert.equal(backoff.next(t0), undefined, 'ten attempts by default');
    }
  });

  it('gives up once the link would have been down for longer than allowed when the next attempt starts', () => {
    const backoff = new Backoff({ random: () => 0.5, giveUpAfterMs: 5000 });
    backoff.begin(t0);
    assert.equal(backoff.next(t0), 1000);
    assert.equal(backoff.next(t0 + 1000), 2000);
    assert.equal(backoff.next(t0 + 3000), undefined, 'the third attempt would start at 7 s');
  });

  it('counts the outage from its first moment, and starts over after reset', () => {
    const backoff = new Backoff({ random: () => 0.5, giveUpAfterMs: 10_000 });
    backoff.begin(t0);
    backoff.begin(t0 + 9000);
    assert.equal(backoff.next(t0 + 9500), undefined);
    backoff.reset();
    assert.equal(backoff.attempts, 0);
    assert.equal(backoff.next(t0 + 9500), 1000);
  });
});
