import * as assert from 'node:assert/strict';
import { readMessageHead } from '../../../src/acp/transport/messageHead';

describe('readMessageHead (what the start of a discarded line says it was)', () => {
  it('reads the method, the id and params.sessionId of a whole message, in any order', () => {
    assert.deepEqual(readMessageHead('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{}}}'), {
      method: 'session/update',
      sessionId: 's1',
    });
    assert.deepEqual(readMessageHead('{ "params" : { "path": "/a", "sessionId" : "s\\"2" }, "id": 7, "method": "fs/write_text_file" }'), {
      method: 'fs/write_text_file',
      id: 7,
      sessionId: 's"2',
    });
    assert.deepEqual(readMessageHead('{"jsonrpc":"2.0","id":"r-1","result":{"sessionId":"not params"}}'), { id: 'r-1', answer: true });
  });

  it('reads only as far as the prefix goes, and never a member cut off or nested deeper', () => {
    assert.deepEqual(readMessageHead('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"content":{"text":"xxxx'), {
      method: 'session/update',
      sessionId: 's1',
    });
    assert.deepEqual(readMessageHead('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1'), { method: 'session/update' });
    assert.deepEqual(readMessageHead('{"id":12'), {}, 'a number cut off may be longer');
    assert.deepEqual(readMessageHead('{"method":"x","params":{"update":{"sessionId":"inner"},"list":[{"sessionId":"in array"}],"n":1'), { method: 'x' });
    assert.deepEqual(readMessageHead('{"method":"x","params":{"text":"{\\"sessionId\\":\\"quoted\\"}"'), { method: 'x' }, 'text that looks like JSON is text');
    assert.deepEqual(readMessageHead('not json at all'), {});
    assert.deepEqual(readMessageHead(''), {});
  });
});
