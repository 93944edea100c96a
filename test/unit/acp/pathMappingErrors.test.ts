import * as assert from 'node:assert/strict';
import { createPathMapper } from '../../../src/acp/pathMapping';
import { agentFacingError } from '../../../src/acp/pathMappingErrors';

const mapper = createPathMapper(
  [
    { local: '/home/me/app', remote: '/workspace/app' },
    { local: '/home/me/lib', remote: '/srv/lib' },
  ],
  { localPlatform: 'posix' },
);
const read = { method: 'fs/read_text_file', agentPath: '/workspace/app/a.ts', sessionRoots: ['/workspace/app'] };

describe('agentFacingError: an error answer to a remote agent, in its own paths (issue 24, item 11)', () => {
  it("leaves words alone that only look like paths inside a word (a method name), and the agent's own paths", () => {
    const error = { code: -32602, message: 'Invalid params for fs/read_text_file: /workspace/app/a.ts is not a text file and/or too large' };
    assert.deepEqual(agentFacingError(error, read, mapper), error);
  });

  it('maps local paths, quoted or bare, at the end of a sentence too', () => {
    const answer = agentFacingError({ code: -32603, message: 'Could not open "/home/me/app/a.ts" next to /home/me/lib.' }, read, mapper);
    assert.equal(answer.message, 'Could not open "/workspace/app/a.ts" next to /srv/lib.');
  });

  it('replaces a message naming a path of this machine that no mapping covers, in a word-built refusal', () => {
    const answer = agentFacingError(
      {
        code: -32602,
        message: '"/home/me/app/a.ts" is outside: it resolves to /etc/shadow',
        data: { path: '/home/me/app/a.ts', roots: ['/home/me/app', '/home/me/private'], reason: 'outside-roots', extra: '/home/me' },
      },
      read,
      mapper,
    );
    assert.equal(answer.message, "Refused: /workspace/app/a.ts is outside this session's folders (/workspace/app).");
    assert.deepEqual(
      answer.data,
      { path: '/workspace/app/a.ts', roots: ['/workspace/app'], reason: 'outside-roots' },
      'a folder no mapping covers is left out, unknown fields dropped',
    );
  });

  it('says which request failed when nothing else can be said', () => {
    const answer = agentFacingError({ code: -32603, message: 'EIO on C:\\Users\\me\\x' }, read, mapper);
    assert.equal(answer.message, 'fs/read_text_file failed for /workspace/app/a.ts (error -32603).');
    assert.equal(answer.data, undefined);
  });
});
