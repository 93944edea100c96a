import * as assert from 'node:assert/strict';
import { contentSourceQuery, readContentSourceQuery, type ContentSource } from '../../../../src/sessions/review/contentSource';

describe('a diff side as a URI query (acp-checkpoint: documents)', () => {
  const query = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('reads back what it wrote, each kind', () => {
    const sources: ContentSource[] = [
      { kind: 'checkpoint', agentName: 'Claude', sessionId: 's1', checkpointId: 'c3', root: '/w/app', path: 'src/a.ts' },
      { kind: 'base', agentName: 'Claude', sessionId: 's1', key: 'k', root: '/w/app', path: 'src/a.ts' },
      { kind: 'absent', agentName: '', sessionId: '', root: '/w/app', path: 'new.ts' },
    ];
    for (const source of sources) assert.deepEqual(readContentSourceQuery(contentSourceQuery(source)), source);
  });

  it('reads a query that is not one of them as nothing (state read back is validated)', () => {
    assert.equal(
      readContentSourceQuery(query({ kind: 'checkpoint', agentName: 'Claude', sessionId: 's1', root: '/w/app', path: 'a.ts' })),
      undefined,
      'no checkpointId',
    );
    assert.equal(
      readContentSourceQuery(query({ kind: 'base', agentName: 'Claude', sessionId: 's1', key: 7, root: '/w/app', path: 'a.ts' })),
      undefined,
      'a key that is no string',
    );
    assert.equal(
      readContentSourceQuery(query({ kind: 'elsewhere', agentName: 'Claude', sessionId: 's1', root: '/', path: 'etc/passwd' })),
      undefined,
      'an unknown kind',
    );
    assert.equal(readContentSourceQuery(query(null)), undefined);
    assert.equal(readContentSourceQuery(query('checkpoint')), undefined);
    assert.equal(readContentSourceQuery('not base64 JSON'), undefined);
  });
});
