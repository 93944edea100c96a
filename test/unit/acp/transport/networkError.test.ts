import * as assert from 'node:assert/strict';
import { networkCause, networkWords } from '../../../../src/acp/transport/networkError';

/** An error as fetch throws it: "fetch failed", the socket's error in `cause`. */
function fetchFailed(code: string, message: string): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
}

describe('network failures in words', () => {
  it('names a system error code first (what a user searches for), then says it in words', () => {
    assert.equal(
      networkCause(fetchFailed('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9')),
      'ECONNREFUSED — the connection was refused (is the server running?)',
    );
    assert.equal(networkCause(fetchFailed('CERT_HAS_EXPIRED', 'certificate has expired')), 'CERT_HAS_EXPIRED — its TLS certificate has expired');
  });

  it("says fetch's own codes (UND_ERR_…) in words only", () => {
    assert.equal(networkCause(fetchFailed('UND_ERR_SOCKET', 'other side closed')), 'the connection was closed by the other side');
    assert.equal(networkCause(fetchFailed('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error')), 'the connection timed out');
    assert.doesNotMatch(networkWords('Box', 'http://box:2468', fetchFailed('UND_ERR_SOCKET', 'other side closed')), /UND_ERR/);
  });
});
