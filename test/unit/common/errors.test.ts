import * as assert from 'node:assert/strict';
import { assertNever, errorMessage } from '../../../src/common/errors';

describe('errors as text, and the never-check', () => {
  it('errorMessage: an Error’s message, anything else as a string', () => {
    assert.equal(errorMessage(new Error('it broke')), 'it broke');
    assert.equal(errorMessage('plain words'), 'plain words');
    assert.equal(errorMessage(42), '42');
    assert.equal(errorMessage(undefined), 'undefined');
  });

  it('assertNever throws, naming what came and the value (bounded)', () => {
    type Kind = { kind: 'a' } | { kind: 'b' };
    const name = (k: Kind): string => {
      switch (k.kind) {
        case 'a':
          return 'A';
        case 'b':
          return 'B';
      }
      return assertNever(k, 'kind');
    };
    assert.equal(name({ kind: 'a' }), 'A');
    assert.throws(() => name({ kind: 'c' } as unknown as Kind), { message: 'Unexpected kind: {"kind":"c"}' });
    assert.throws(
      () => assertNever('x'.repeat(500) as never),
      (error: Error) => error.message.length < 230 && error.message.endsWith('…'),
    );
  });
});
