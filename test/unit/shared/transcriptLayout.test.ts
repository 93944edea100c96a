import * as assert from 'node:assert/strict';
import type { ViewEntry } from '../../../src/shared/chatModel';
import { ENTRY_GAP, estimateEntryHeight } from '../../../src/shared/entryHeights';
import { TranscriptLayout, type Slot } from '../../../src/shared/transcriptLayout';

const agent = (id: string, text: string): ViewEntry => ({ kind: 'agent', id, blocks: [{ type: 'text', text }] });
const info = (id: string, text = 'note'): ViewEntry => ({ kind: 'info', id, text });

/** Every entry is estimated at 100 px, whatever its content: the tests decide what is measured. */
const flat = () => new TranscriptLayout(() => 100);

function transcript(count: number, prefix = 'e'): ViewEntry[] {
  return Array.from({ length: count }, (_, i) => info(`${prefix}${i}`));
}

/** The entries a plan renders, and the total height it stands for. */
function shape(slots: readonly Slot[], layout: TranscriptLayout): { entries: number[]; height: number } {
  let height = 0;
  const entries: number[] = [];
  for (const slot of slots) {
    if (slot.kind === 'gap') height += slot.height;
    else {
      entries.push(slot.index);
      height += layout.heightOf(slot.index);
    }
  }
  return { entries, height };
}

describe('TranscriptLayout (the chat transcript, virtualized)', () => {
  describe('heights: estimated, then measured and kept per entry and width', () => {
    it('estimates entries it never measured, and keeps what it measured for the entry and the width', () => {
      const layout = flat();
      const entries = transcript(3);
      layout.sync(entries, 600);
      assert.equal(layout.total, 300);
      assert.ok(layout.needsMeasuring(1));
      assert.equal(layout.measured(1, 40), true, 'a new height moves what follows');
      assert.equal(layout.needsMeasuring(1), false);
      assert.equal(layout.measured(1, 40), false, 'the same height again moves nothing');
      assert.deepEqual([layout.offset(1), layout.offset(2), layout.total], [100, 140, 240]);

      // Another width: measured anew (estimates until then); back to the first width: what was measured there.
      layout.sync(entries, 300);
      assert.equal(layout.total, 300);
      assert.ok(layout.needsMeasuring(1));
      layout.measured(1, 80);
      layout.sync(entries, 600);
      assert.equal(layout.heightOf(1), 40, 'the height measured at 600 px is back');
      assert.ok(layout.needsMeasuring(1), 'but it is measured again when rendered (fonts or images may have changed)');
      layout.sync(entries, 300);
      assert.equal(layout.heightOf(1), 80);
    });

    it('grows an entry whose content changed by what its estimate grew, until it is measured again; lays out appended entries', () => {
      // Estimated by its text's length: a streamed chunk makes it taller.
      const layout = new TranscriptLayout((entry) => (entry.kind === 'agent' && entry.blocks[0]?.type === 'text' ? entry.blocks[0].text.length : 100));
      let entries = [agent('a', 'Hello'), info('b')];
      layout.sync(entries, 600);
      layout.measured(0, 30);
      // A streamed chunk: a new object for the same entry, and a new entry after it.
      entries = [agent('a', 'Hello, world'), entries[1]!, info('c')];
      assert.equal(layout.sync(entries, 600), true);
      assert.equal(layout.heightOf(0), 30 + 7, 'measured 30 px at 5 characters, 12 characters now');
      assert.ok(layout.needsMeasuring(0), 'its new content is measured when rendered');
      layout.measured(0, 44);
      assert.equal(layout.heightOf(0), 44);
      assert.equal(layout.count, 3);
      assert.equal(layout.indexOf('c'), 2);
      assert.equal(layout.sync(entries, 600), false, 'the same transcript again: nothing to do');
    });

    it('starts over when the transcript does (a replay), forgetting what it measured of the old one', () => {
      const layout = flat();
      layout.sync(transcript(5), 600);
      layout.measured(0, 10);
      layout.sync(transcript(2, 'r'), 600);
      assert.equal(layout.count, 2);
      assert.equal(layout.indexOf('e0'), undefined);
      assert.equal(layout.total, 200);
      layout.sync(transcript(5), 600);
      assert.equal(layout.heightOf(0), 100, 'measurements of a transcript that was replaced are gone');
    });

    it('estimates from the text: longer text and narrower width are taller, an entry that shows nothing is 0', () => {
      const short = estimateEntryHeight(agent('a', 'One line.'), 600);
      const long = estimateEntryHeight(agent('b', 'word '.repeat(400)), 600);
      const narrow = estimateEntryHeight(agent('b2', 'word '.repeat(400)), 300);
      assert.ok(short >= ENTRY_GAP + 19 && short < 60, `a line: ${short}`);
      assert.ok(long > short * 5, `2,000 characters: ${long}`);
      assert.ok(narrow > long * 1.7, `half as wide, about twice as tall: ${narrow} vs ${long}`);
      const code = estimateEntryHeight(agent('c', 'Look:\n\n```ts\nconst a = 1;\n```\n'), 600);
      assert.ok(code > short + 40, `a code block adds its frame: ${code}`);
      assert.equal(
        estimateEntryHeight({ kind: 'terminal', id: 't', terminalId: 't', command: 'ls', inToolCall: true }, 600),
        0,
        'a terminal a tool call shows',
      );
    });
  });

  describe('range and slots', () => {
    it('renders the entries in view and an overscan on each side, with spacers for the rest', () => {
      const layout = flat();
      layout.sync(transcript(100), 600);
      const range = layout.range(2000, 500, 300);
      assert.deepEqual(range, { first: 17, last: 29 });
      const slots = layout.slots(range);
      assert.deepEqual(slots[0], { kind: 'gap', key: 'gap-17', height: 1700 });
      assert.deepEqual(slots[slots.length - 1], { kind: 'gap', key: 'gap-end', height: 7100 });
      const { entries, height } = shape(slots, layout);
      assert.deepEqual(
        entries,
        Array.from({ length: 12 }, (_, i) => 17 + i),
      );
      assert.equal(height, layout.total, 'the scrollbar reflects the whole transcript');
      assert.deepEqual(layout.range(-50, 500, 300), { first: 0, last: 8 });
      assert.deepEqual(layout.range(9500, 500, 300), { first: 92, last: 100 });
      assert.deepEqual(new TranscriptLayout().range(0, 500, 300), { first: 0, last: 0 });
    });

    it('keeps an entry it was asked to keep (the one holding the focus) rendered at its place, wherever it is', () => {
      const layout = flat();
      layout.sync(transcript(100), 600);
      const range = layout.range(5000, 500, 0);
      const above = shape(layout.slots(range, ['e3']), layout);
      assert.deepEqual(above.entries, [3, 50, 51, 52, 53, 54, 55]);
      assert.equal(above.height, layout.total);
      const slots = layout.slots(range, ['e3', 'e90', 'e52', 'gone']);
      assert.deepEqual(shape(slots, layout).entries, [3, 50, 51, 52, 53, 54, 55, 90]);
      assert.deepEqual(
        slots.filter((slot) => slot.kind === 'gap').map((slot) => slot.kind === 'gap' && slot.height),
        [300, 4600, 3400, 900],
      );
    });

    it('stays exact with 300,000 entries, rendering a bounded number of them', () => {
      const layout = flat();
      const entries = transcript(300_000);
      layout.sync(entries, 600);
      for (let i = 0; i < 1000; i++) layout.measured(299_000 + i, 50);
      const range = layout.range(layout.total - 800, 800, 400);
      assert.equal(range.last, 300_000);
      assert.ok(range.last - range.first < 40, `a bounded number of entries: ${range.last - range.first}`);
      assert.equal(shape(layout.slots(range), layout).height, layout.total);
      // Appending one entry to a long transcript is one identity check per entry, not a new layout.
      layout.sync([...entries, info('new')], 600);
      assert.equal(layout.count, 300_001);
    });
  });

  describe('anchoring: what the user reads does not move', () => {
    it('finds the reading position and gives it back after entries above change height', () => {
      const layout = flat();
      layout.sync(transcript(10), 600);
      const anchor = layout.anchorAt(450);
      assert.deepEqual(anchor, { id: 'e4', offset: 50 });
      layout.measured(1, 160);
      layout.measured(2, 20);
      assert.equal(layout.positionOf(anchor!), 430, 'the entry read moved by +60 − 80 px; the position follows it');
      // The entry read grows itself (a streamed chunk): its top stays where it was.
      layout.measured(4, 400);
      assert.equal(layout.positionOf(anchor!), 430);
    });

    it('does not move for entries arriving below', () => {
      const layout = flat();
      const entries = transcript(10);
      layout.sync(entries, 600);
      const anchor = layout.anchorAt(333)!;
      layout.sync([...entries, info('late'), info('later')], 600);
      assert.equal(layout.positionOf(anchor), 333);
    });

    it('says when the anchored entry is gone (a new transcript)', () => {
      const layout = flat();
      layout.sync(transcript(3), 600);
      const anchor = layout.anchorAt(120)!;
      layout.sync(transcript(3, 'replayed'), 600);
      assert.equal(layout.positionOf(anchor), undefined);
      assert.equal(new TranscriptLayout().anchorAt(10), undefined);
    });
  });
});
