import * as assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatOp } from '../../../src/shared/chatModel';
import { PatchPacer } from '../../../src/thread/patchPacer';
import { Thread } from '../../../src/thread/thread';
import { transcriptEvent } from '../../../src/acp/v1/transcriptEvents';

function setup(ackTimeoutMs = 1000) {
  const thread = new Thread({ agentName: 'Agent', roots: [], prompt: { image: false, audio: false, embeddedContext: false } });
  const sent: Array<{ seq: number; ops: ChatOp[] }> = [];
  let late = 0;
  const pacer = new PatchPacer({
    takeOps: () => thread.takeOps(),
    hasChanges: () => thread.hasChanges,
    send: (seq, ops) => sent.push({ seq, ops }),
    onLate: () => late++,
    ackTimeoutMs,
  });
  const chunk = (text: string) => {
    thread.apply(transcriptEvent({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }));
    pacer.schedule();
  };
  return { thread, pacer, sent, chunk, late: () => late };
}

describe('PatchPacer (one patch in flight, the rest coalesced)', () => {
  it('sends nothing before the webview started; the snapshot carries what changed before', () => {
    const { pacer, sent, chunk, thread } = setup();
    chunk('a');
    assert.equal(sent.length, 0);
    pacer.start();
    assert.equal(thread.hasChanges, false, 'start drops pending ops: the snapshot contains them');
    chunk('b');
    assert.equal(sent.length, 1);
    pacer.dispose();
  });

  it('holds every change while a patch is in flight and sends them as one patch after the acknowledgement', () => {
    const { pacer, sent, chunk } = setup();
    pacer.start();
    chunk('Hello');
    for (let i = 0; i < 1000; i++) chunk(` ${i}`);
    assert.equal(sent.length, 1, 'one patch in flight');
    pacer.acknowledge(sent[0]!.seq + 7);
    assert.equal(sent.length, 1, 'an acknowledgement of another patch changes nothing');
    pacer.acknowledge(sent[0]!.seq);
    assert.equal(sent.length, 2);
    assert.equal(sent[1]!.ops.length, 1, '1000 appends to one message coalesce into one op');
    pacer.acknowledge(sent[1]!.seq);
    assert.equal(sent.length, 2, 'nothing changed, nothing sent');
    chunk('!');
    assert.equal(sent.length, 3);
    assert.deepEqual(
      sent.map((s) => s.seq),
      [1, 2, 3],
    );
    pacer.dispose();
  });

  it('sends the next patch anyway when an acknowledgement does not come in time, and says so', async () => {
    const { pacer, sent, chunk, late } = setup(30);
    pacer.start();
    chunk('a');
    chunk('b');
    assert.equal(sent.length, 1);
    await sleep(80);
    assert.equal(sent.length, 2, 'the held change went after the timeout');
    assert.equal(late(), 1);
    await sleep(80);
    assert.equal(sent.length, 2, 'no empty patches');
    assert.equal(late(), 1);
    pacer.dispose();
  });

  it('posts nothing more to a view that acknowledges nothing (gone with its connection, frames stopped) and says so once; goes on when it answers', async () => {
    // Issue 25 item 18: a view that never answered got a patch and a warning every second while the agent wrote.
    const { pacer, sent, chunk, late } = setup(20);
    pacer.start();
    chunk('a');
    const writing = setInterval(() => chunk('.'), 5);
    try {
      for (let i = 0; i < 20 && sent.length < 2; i++) await sleep(20);
      assert.equal(sent.length, 2, 'one patch went after the timeout');
      await sleep(200); // ten more timeouts while the agent writes
      assert.equal(sent.length, 2, 'nothing more is posted into nothing');
      assert.equal(late(), 1, 'said once');
      pacer.acknowledge(sent[1]!.seq);
      assert.equal(sent.length, 3, 'the view answered: what changed meanwhile goes');
      pacer.acknowledge(sent[2]!.seq);
      for (let i = 0; i < 20 && sent.length < 4; i++) await sleep(10);
      assert.ok(sent.length >= 4, 'and the pacing goes on');
    } finally {
      clearInterval(writing);
      pacer.dispose();
    }
  });

  it('stops when the webview goes away and sends nothing until it starts again', async () => {
    const { pacer, sent, chunk } = setup(20);
    pacer.start();
    chunk('a');
    pacer.stop();
    chunk('b');
    await sleep(50);
    assert.equal(sent.length, 1);
    pacer.start();
    chunk('c');
    assert.equal(sent.length, 2, 'a restarted webview is not waiting for an old acknowledgement');
    pacer.dispose();
  });
});
