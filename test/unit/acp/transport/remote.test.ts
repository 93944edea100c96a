import * as assert from 'node:assert/strict';
import { credentialHeaders } from '../../../../src/acp/transport/remote';

describe('the headers a remote link sends for its credentials', () => {
  it('the extra headers, and the token as one Authorization header whatever the case of an extra one', () => {
    assert.deepEqual(credentialHeaders({}), {});
    assert.deepEqual(credentialHeaders({ headers: { 'X-Team': 'blue', authorization: 'Basic abc' } }), { 'X-Team': 'blue', authorization: 'Basic abc' });
    assert.deepEqual(credentialHeaders({ token: 't', headers: { 'X-Team': 'blue', authorization: 'Basic abc' } }), {
      'X-Team': 'blue',
      Authorization: 'Bearer t',
    });
  });
});
