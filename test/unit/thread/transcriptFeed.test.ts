import * as assert from 'node:assert/strict';
import { applyOps, type ChatOp, type ViewEntry, type ViewSessionState } from '../../../src/shared/chatModel';
import { HostToChat } from '../../../src/shared/chatProtocol';
import { cutOps, cutSnapshot, sizeOf } from '../../../src/thread/patchPieces';
import { Thread } from '../../../src/thread/thread';
import { TranscriptFeed, type FeedMessage } from '../../../src/thread/transcriptFeed';
import { transcriptEvent } from '../../../src/acp/v1/transcriptEvents';

const agent = (id: string, text: string): ViewEntry => ({ kind: 'agent', id, blocks: [{ type: 'text', text }] });

function applied(pieces: readonly ChatOp[][], start: ViewEntry[] = []): ViewEntry[] {
  const entries = start.slice();
  const index = new Map(entries.map((entry, i) => [entry.id, i]));
  for (const piece of pieces) applyOps(entries, index, piece);
  return entries;
}

/** What the chat webview's store does with the messages (src/webview/chat/store.ts, without the DOM). */
class View {
  entries: ViewEntry[] = [];
  session: ViewSessionState | undefined;
  /** What is shown at each point a message left the view complete. */
  readonly shown: number[] = [];
  private gathering: { entries: ViewEntry[]; index: Map<string, number> } | undefined;
  private index = new Map<string, number>();

  receive(raw: FeedMessage): number | undefined {
    const message = HostToChat.parse(JSON.parse(JSON.stringify(raw)));
    if (message.type === 'snapshot') {
      const entries = message.entries.slice();
      const index = new Map(entries.map((entry, i) => [entry.id, i]));
      this.session = message.session;
      if (message.more) this.gathering = { entries, index };
      else [this.entries, this.index] = [entries, index];
    } else if (message.type === 'patch') {
      const target =
        this.gathering ??
        (message.more ? (this.gathering = { entries: this.entries.slice(), index: new Map(this.index) }) : { entries: this.entries, index: this.index });
      this.session = applyOps(target.entries, target.index, message.ops) ?? this.session;
      if (!message.more && this.gathering) {
        [this.entries, this.index] = [this.gathering.entries, this.gathering.index];
        this.gathering = undefined;
      }
      if (!this.gathering) this.shown.push(this.entries.length);
      return message.seq;
    }
    if (!this.gathering) this.shown.push(this.entries.length);
    return undefined;
  }
}

describe('a transcript too large for one message goes in pieces', () => {
  it('cuts ops into pieces of about the budget that, applied in order, do what the ops do', () => {
    const ops: ChatOp[] = [
      { op: 'reset' },
      ...Array.from({ length: 200 }, (_, i): ChatOp => ({ op: 'entry', entry: agent(`a${i}`, `message ${i} `.repeat(20)) })),
    ];
    const pieces = cutOps(ops, 4000);
    assert.ok(pieces.length > 10, `${pieces.length} pieces`);
    for (const piece of pieces) assert.ok(sizeOf(piece) <= 4000 + 400, `a piece of ${sizeOf(piece)}`);
    assert.deepEqual(pieces.flat(), ops, 'the same ops, in order');
    assert.deepEqual(cutOps(ops.slice(0, 3), 4000), [ops.slice(0, 3)], 'small changes stay one patch');
    assert.deepEqual(cutOps([], 4000), [[]]);
  });

  it('sends a huge message as its entry with the start of its text, then appends; never between the halves of a surrogate pair', () => {
    const huge = `${'😀'.repeat(3000)}end`;
    const ops: ChatOp[] = [
      { op: 'entry', entry: agent('big', huge) },
      { op: 'append', id: 'big', text: 'x'.repeat(2500) },
      { op: 'entry', entry: { kind: 'thought', id: 't', text: 'y'.repeat(5000) } },
    ];
    const pieces = cutOps(ops, 1000);
    for (const piece of pieces) assert.ok(sizeOf(piece) <= 1400, `a piece of ${sizeOf(piece)}`);
    for (const op of pieces.flat()) {
      const text =
        op.op === 'append' ? op.text : op.op === 'entry' && op.entry.kind === 'agent' && op.entry.blocks[0]!.type === 'text' ? op.entry.blocks[0]!.text : '';
      assert.ok(!/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(text), 'no half of a pair at either end');
    }
    const entries = applied(pieces);
    assert.deepEqual(entries, [agent('big', huge + 'x'.repeat(2500)), { kind: 'thought', id: 't', text: 'y'.repeat(5000) }]);
  });

  it('cuts a snapshot into the entries of its first piece and the ops that follow', () => {
    const entries = Array.from({ length: 100 }, (_, i) => agent(`a${i}`, `text ${i} `.repeat(30)));
    const { first, rest } = cutSnapshot(entries, 5000);
    const pieces: ChatOp[][] = [];
    while (!rest.done) {
      assert.ok(rest.left >= 1, 'it says more follow');
      pieces.push(rest.next());
    }
    assert.equal(rest.left, 0);
    assert.ok(first.length > 0 && first.length < 100 && pieces.length > 5, `${first.length} entries first, ${pieces.length} pieces after`);
    assert.deepEqual(applied(pieces, first), entries);
    const small = cutSnapshot(entries.slice(0, 2), 5000);
    assert.deepEqual(small.first, entries.slice(0, 2));
    assert.equal(small.rest.done, true);
    const huge = cutSnapshot([agent('big', 'z'.repeat(12_000)), agent('after', 'end')], 5000);
    assert.equal(huge.first.length, 1, 'the start of the huge entry');
    const rests: ChatOp[][] = [];
    while (!huge.rest.done) rests.push(huge.rest.next());
    assert.deepEqual(applied(rests, huge.first), [agent('big', 'z'.repeat(12_000)), agent('after', 'end')]);
  });

  it('feeds a view a long transcript: the snapshot then one piece per acknowledgement, shown only once complete, then new changes', () => {
    const thread = new Thread({ agentName: 'Agent', roots: [], prompt: { image: false, audio: false, embeddedContext: false }, status: 'idle' });
    for (let i = 0; i < 300; i++) {
      thread.addUserPrompt([{ type: 'text', text: `prompt ${i}` }]);
      thread.apply(transcriptEvent({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer ${i} `.repeat(40) } }));
      thread.endTurn('end_turn');
    }
    const view = new View();
    const sent: FeedMessage[] = [];
    const feed = new TranscriptFeed(thread, (message) => sent.push(message), { pieceChars: 20_000 });
    feed.start({ draft: { text: 'unsent', attachments: [] } });
    assert.equal(sent.length, 2, 'the snapshot, and the first piece in flight');
    const snapshot = sent[0]!;
    assert.ok(snapshot.type === 'snapshot' && snapshot.more !== undefined && snapshot.more > 5, 'the snapshot says more pieces follow');
    assert.equal(snapshot.draft?.text, 'unsent');
    view.receive(snapshot);
    let delivered = 1;
    while (delivered < sent.length) {
      const seq = view.receive(sent[delivered++]!);
      // A change during the pieces waits behind them.
      if (delivered === 3) thread.addInfo('arrived while the pieces were on their way');
      if (seq !== undefined) feed.acknowledge(seq);
      feed.changed();
    }
    assert.deepEqual(view.entries, thread.snapshot().entries, 'the view holds exactly the transcript');
    assert.deepEqual(view.shown, [900, 901], 'shown once whole (900 entries), then the change that came meanwhile');
    assert.equal(feed.waiting, false, 'nothing in flight once the view acknowledged everything');
    feed.dispose();
  });

  it('sends the replay that replaces a shown transcript in pieces too: the view keeps the old one until the last piece', () => {
    const thread = new Thread({ agentName: 'Agent', roots: [], prompt: { image: false, audio: false, embeddedContext: false }, status: 'idle' });
    thread.addUserPrompt([{ type: 'text', text: 'shown before' }]);
    const view = new View();
    const sent: FeedMessage[] = [];
    const feed = new TranscriptFeed(thread, (message) => sent.push(message), { pieceChars: 10_000 });
    feed.start();
    view.receive(sent[0]!);
    thread.beginReplay();
    for (let i = 0; i < 200; i++)
      thread.apply(transcriptEvent({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: `replayed ${i} `.repeat(30) } }));
    thread.endReplay();
    feed.changed();
    let at = 1;
    while (at < sent.length) {
      const seq = view.receive(sent[at++]!);
      if (seq !== undefined) feed.acknowledge(seq);
    }
    assert.ok(sent.length > 5, `${sent.length} messages`);
    assert.deepEqual(view.shown, [1, 200], 'the old transcript, then the replay whole');
    assert.deepEqual(view.entries, thread.snapshot().entries);
    feed.dispose();
  });
});
