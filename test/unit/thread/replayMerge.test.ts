import * as assert from 'node:assert/strict';
import type { ViewEntry } from '../../../src/shared/chatModel';
import { keepAcrossReplay } from '../../../src/thread/replayMerge';

const agent = (id: string, ...texts: string[]): ViewEntry => ({ kind: 'agent', id, blocks: texts.map((text) => ({ type: 'text' as const, text })) });
const user = (id: string, text: string): ViewEntry => ({ kind: 'user', id, blocks: [{ type: 'text', text }] });
const end = (id: string): ViewEntry => ({ kind: 'turnEnd', id, stopReason: 'end_turn' });

describe('keepAcrossReplay (a load replay over a chat that shows the conversation)', () => {
  it('matches a message whatever its whitespace (streamed chunks against the recorded whole), across text blocks', () => {
    const before = [user('u1', '  Fix   the\ngreeting '), agent('a1', 'Done: ', '\n\nthe greeting\tsays hello.'), end('e1')];
    const replay = [user('r1', 'Fix the greeting'), agent('r2', 'Done: the greeting says hello.')];
    assert.deepEqual(
      keepAcrossReplay(before, replay).map((e) => e.id),
      ['r1', 'r2', 'e1'],
      'the replay replaces each message once; the turn end stays after its answer',
    );
  });

  it('does not match messages that differ in more than whitespace, or only in where words break', () => {
    const before = [user('u1', 'Fix the greeting'), end('e1'), agent('a1', 'some thing'), end('e2')];
    const replay = [user('r1', 'Fix the greetings'), agent('r2', 'something')];
    // Nothing matched: what only the chat showed stays before the replay, in its order.
    assert.deepEqual(
      keepAcrossReplay(before, replay).map((e) => e.id),
      ['e1', 'e2', 'r1', 'r2'],
    );
  });

  it('keeps each kept entry after the message it followed, with repeated messages matched in order', () => {
    const before = [user('u1', 'again'), agent('a1', 'ok'), end('e1'), user('u2', 'again'), agent('a2', 'ok'), end('e2')];
    const replay = [user('r1', 'again'), agent('r2', 'ok'), user('r3', 'again'), agent('r4', ' ok ')];
    assert.deepEqual(
      keepAcrossReplay(before, replay).map((e) => e.id),
      ['r1', 'r2', 'e1', 'r3', 'r4', 'e2'],
    );
  });
});
