import * as assert from 'node:assert/strict';
import {
  ANSWER_LENGTH,
  ChatAttention,
  answerFirstLine,
  failedText,
  finishedText,
  notificationLevel,
  type NotificationLevel,
} from '../../../../src/sessions/turns/chatAttention';
import type { ViewEntry } from '../../../../src/shared/chatModel';

describe('chat attention: which events of a chat out of view notify, and the badge', () => {
  let level: NotificationLevel = 'all';
  let attention: ChatAttention<string>;
  beforeEach(() => {
    level = 'all';
    attention = new ChatAttention<string>(() => level);
  });
  const finished = { kind: 'finished', stoppedByUser: false } as const;
  const state = (chat: string, waitingPermissions = 0) => ({ chat, title: chat.toUpperCase(), waitingPermissions });

  it('notifies a turn that ended while the chat was out of view, never one the user watched or stopped', () => {
    assert.equal(attention.event('a', finished, true), false, 'in view in a focused window');
    assert.equal(attention.event('b', { kind: 'finished', stoppedByUser: true }, false), false, 'the user pressed Stop');
    assert.equal(attention.badge([state('a'), state('b')]), undefined);
    assert.equal(attention.event('a', finished, false), true);
  });

  it('notifies a burst of turns in one chat once, until the user has seen the chat; each chat once', () => {
    assert.equal(attention.event('a', finished, false), true);
    assert.equal(attention.event('a', finished, false), false);
    assert.equal(attention.event('a', finished, false), false);
    assert.equal(attention.event('b', finished, false), true, 'another chat has its own notice');
    assert.equal(attention.seen('a'), true);
    assert.equal(attention.seen('a'), false, 'seen once is enough');
    assert.equal(attention.event('a', finished, false), true, 'after the user came back, the next end is news again');
  });

  it('notifies each permission request once, whatever else happened, and forgets answered ones', () => {
    assert.equal(attention.event('a', { kind: 'permission', entryId: 'p1' }, false), true);
    assert.equal(attention.event('a', { kind: 'permission', entryId: 'p1' }, false), false, 'hidden again: the same request is not said twice');
    attention.seen('a');
    assert.equal(attention.event('a', { kind: 'permission', entryId: 'p1' }, false), false, 'not even after the chat was seen');
    assert.equal(attention.event('a', { kind: 'permission', entryId: 'p2' }, false), true, 'a new request is');
    attention.prune('a', ['p2']);
    assert.equal(attention.event('a', { kind: 'permission', entryId: 'p2' }, false), false);
    assert.equal(attention.event('a', { kind: 'permission', entryId: 'p1' }, true), false, 'in view: the chat shows it');
  });

  it('notifies a failure once per chat until seen, also after a finished turn was noticed', () => {
    assert.equal(attention.event('a', finished, false), true);
    assert.equal(attention.event('a', { kind: 'failed' }, false), true);
    assert.equal(attention.event('a', { kind: 'failed' }, false), false);
    assert.deepEqual(attention.badge([state('a')]), { count: 1, tooltip: 'A: the agent failed' });
    assert.equal(attention.event('a', finished, false), false);
    assert.deepEqual(attention.badge([state('a')]), { count: 1, tooltip: 'A: the agent failed' }, 'a failure is not hidden by a later end');
  });

  it('a failure no longer counts once the chat’s session is back, and the next failure is notified again', () => {
    attention.event('a', finished, false);
    assert.equal(attention.recovered('a'), false, 'nothing failed: the badge does not change');
    attention.event('b', { kind: 'failed' }, false);
    assert.equal(attention.recovered('b'), true);
    assert.deepEqual(attention.badge([state('a'), state('b')]), { count: 1, tooltip: 'A: finished, not seen yet' });
    assert.equal(attention.event('b', { kind: 'failed' }, false), true, 'a new failure is notified');
  });

  it('counts in the badge the chats that wait: a permission request, an unseen end or failure; cleared when seen', () => {
    attention.event('a', finished, false);
    attention.event('c', { kind: 'failed' }, false);
    const badge = attention.badge([state('a'), state('b', 2), state('c'), state('d')]);
    assert.deepEqual(badge, {
      count: 3,
      tooltip: 'A: finished, not seen yet\nB: a permission request waits\nC: the agent failed',
    });
    attention.seen('a');
    attention.seen('c');
    assert.deepEqual(attention.badge([state('a'), state('b', 1), state('c')]), { count: 1, tooltip: 'B: a permission request waits' });
    attention.forget('b');
    assert.equal(attention.badge([state('a'), state('c')]), undefined);
  });

  it('"waiting": permission requests and failures only; "off": nothing, and no badge', () => {
    level = 'waiting';
    assert.equal(attention.event('a', finished, false), false);
    assert.equal(attention.badge([state('a')]), undefined, 'an unseen end is not counted either');
    assert.equal(attention.event('a', { kind: 'permission', entryId: 'p' }, false), true);
    assert.equal(attention.event('a', { kind: 'failed' }, false), true);
    level = 'off';
    assert.equal(attention.event('b', { kind: 'permission', entryId: 'p' }, false), false);
    assert.equal(attention.event('b', { kind: 'failed' }, false), false);
    assert.equal(attention.event('b', finished, false), false);
    assert.equal(attention.badge([state('a', 1), state('b', 1)]), undefined);
  });

  it('reads the setting, anything unknown as "all"', () => {
    assert.equal(notificationLevel('waiting'), 'waiting');
    assert.equal(notificationLevel('off'), 'off');
    assert.equal(notificationLevel('all'), 'all');
    assert.equal(notificationLevel(undefined), 'all');
    assert.equal(notificationLevel(false), 'all');
    assert.equal(notificationLevel('OFF'), 'all');
  });
});

describe('chat attention: what a notification says', () => {
  const agent = (...texts: string[]): ViewEntry => ({ kind: 'agent', id: `a${texts.join()}`, blocks: texts.map((text) => ({ type: 'text', text })) });
  const user: ViewEntry = { kind: 'user', id: 'u', blocks: [{ type: 'text', text: 'question' }] };

  it('quotes the first line of the last answer of the last turn, without markdown markers, bounded', () => {
    assert.equal(answerFirstLine([user, agent('\n\n## Done: ', 'all tests pass\nDetails follow')]), 'Done: all tests pass');
    assert.equal(answerFirstLine([user, agent('```ts\nconst a = 1;\n```')]), 'const a = 1;');
    assert.equal(answerFirstLine([user, agent('- **first** item')]), '**first** item');
    assert.equal(answerFirstLine([user, agent('first answer'), { kind: 'turnEnd', id: 'e', stopReason: 'end_turn' }]), 'first answer');
    assert.equal(
      answerFirstLine([agent('earlier turn'), user, { kind: 'turnEnd', id: 'e', stopReason: 'end_turn' }]),
      undefined,
      'not an answer of an earlier turn',
    );
    assert.equal(answerFirstLine([user, agent('older'), { kind: 'info', id: 'i', text: 'x' }, agent('   ', 'newer')]), 'newer');
    const long = answerFirstLine([user, agent('word '.repeat(1000))])!;
    assert.equal(long.length, ANSWER_LENGTH);
    assert.ok(long.endsWith('…'));
    assert.equal(answerFirstLine([]), undefined);
  });

  it('says why a turn stopped when it did not simply finish', () => {
    assert.equal(finishedText('T', 'end_turn', 'Done.'), '“T” finished: Done.');
    assert.equal(finishedText('T', 'end_turn', undefined), '“T” finished.');
    assert.match(finishedText('T', 'max_tokens', 'x'), /length limit/);
    assert.match(finishedText('T', 'max_turn_requests', 'x'), /limit of requests/);
    assert.match(finishedText('T', 'refusal', 'x'), /refused/);
    assert.match(finishedText('T', 'cancelled', 'x'), /the agent cancelled/);
    assert.equal(finishedText('T', 'something_new', 'Hi'), '“T” finished: Hi');
  });

  it('bounds a failure text and keeps it on one line', () => {
    assert.equal(failedText('T', 'Agent exited\n  with code 1.'), '“T”: Agent exited with code 1.');
    assert.ok(failedText('T', 'x'.repeat(100_000)).length < 420);
  });
});
