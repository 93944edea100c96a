import * as assert from 'node:assert/strict';
import type { ViewEntry } from '../../../src/shared/chatModel';
import { keepAcrossReplay, lastPromptAnchor, placeAfterTurns } from '../../../src/thread/replayMerge';

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

describe('placeAfterTurns (what only the client knows of a turn, put back after a replay into a new chat)', () => {
  const info = (id: string): ViewEntry => ({ kind: 'info', id, text: 'a note' });
  const changes = (id: string): ViewEntry => ({ kind: 'changes', id, checkpointId: 'c1', files: [], state: 'done' });
  const anchorOf = (entries: ViewEntry[]) => lastPromptAnchor(entries)!;

  it('anchors a prompt by its text and the prompts before it, and finds it again in the replay whatever its whitespace', () => {
    const chat = [user('u1', 'again'), agent('a1', 'ok'), user('u2', 'other'), agent('a2', 'ok'), user('u3', '  again ')];
    const anchor = anchorOf(chat);
    assert.deepEqual([anchor.occurrence, anchor.ordinal], [1, 2], 'the second “again”, after two prompts');
    const replay = [user('r1', 'again'), agent('r2', 'ok'), user('r3', 'other'), agent('r4', 'ok'), user('r5', 'again'), agent('r6', 'done'), info('i1')];
    const { entries, placed } = placeAfterTurns(replay, [{ anchor, entry: changes('c') }]);
    assert.deepEqual(
      placed.map((e) => e.id),
      ['c'],
    );
    assert.deepEqual(
      entries.map((e) => e.id),
      ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'c', 'i1'],
      'after the turn’s answer, before the notes that follow the replay',
    );
  });

  it('puts each turn’s entry at the end of its turn, before the next prompt; by position when the text differs; not at all when the prompt is not shown', () => {
    const first = anchorOf([user('u1', 'first')]);
    const second = { ...anchorOf([user('u1', 'first'), user('u2', 'second, with an attachment')]) };
    const hidden = { key: 'no such prompt', occurrence: 0, ordinal: 9 };
    const replay = [
      user('r1', 'first'),
      agent('r2', 'one'),
      { kind: 'tool', id: 't1', toolCallId: 'x', title: 'Edit', toolKind: 'edit', status: 'completed', content: [], locations: [] } as ViewEntry,
      user('r3', 'second'),
      agent('r4', 'two'),
    ];
    const { entries, placed } = placeAfterTurns(replay, [
      { anchor: first, entry: changes('c1') },
      { anchor: second, entry: changes('c2') },
      { anchor: hidden, entry: changes('c3') },
    ]);
    assert.deepEqual(
      entries.map((e) => e.id),
      ['r1', 'r2', 't1', 'c1', 'r3', 'r4', 'c2'],
    );
    assert.deepEqual(
      placed.map((e) => e.id),
      ['c1', 'c2'],
    );
  });
});
