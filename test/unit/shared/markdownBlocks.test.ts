import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { markdownBlocks } from '../../../src/shared/markdownBlocks';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });

/** Rendering the blocks one by one gives what rendering the whole text gives. */
function assertSameRendering(source: string): string[] {
  const blocks = markdownBlocks(source);
  assert.equal(blocks.join(''), source, 'the blocks are the text, cut');
  assert.equal(blocks.map((block) => md.render(block)).join(''), md.render(source), `rendered block by block: ${JSON.stringify(blocks)}`);
  return blocks;
}

const SAMPLES: Record<string, string> = {
  paragraphs: 'First paragraph with `code`.\n\nSecond paragraph\ncontinued on a second line.\n\n\nThird, after two blank lines.',
  heading: '## Step 1\n\nDo this.\n\n### Then\n\nThat.\n',
  fence: 'Look:\n\n```ts\nconst a = 1;\n\nconst b = 2;\n\n// still code\n```\n\nAfter the code.\n',
  tildes: '~~~\nnot closed by ```\n\nstill code\n~~~\n\nText.',
  longerFence: '````md\n```\ninner\n```\n\nstill inside\n````\n\nOut.',
  unclosedFence: 'Start\n\n```python\nprint(1)\n\nprint(2)\n',
  looseList: '- one\n\n- two\n\n  more of two\n\n- three\n\nAfter the list.',
  orderedList: '1. first\n\n2. second\n\nText\n\n3. third',
  nestedList: '- a\n  - b\n\n    code in b?\n\n- c\n',
  indentedCode: 'Para\n\n    code line 1\n\n    code line 2\n\nPara again',
  quote: '> quoted\n>\n> more\n\n> another quote\n\nplain',
  table: '| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter the table.',
  thematicBreak: 'Above\n\n---\n\nBelow\n***\n',
  setext: 'Title\n=====\n\nText\n\nSubtitle\n--------\n',
  lazyParagraph: 'Para line\nlazy continuation\n\nnext',
  linkify: 'See https://example.com/a\n\nand www.example.org too.',
  emphasisAcross: 'Some *emphasis\n\nnot closed* here.',
  crlf: 'One\r\n\r\nTwo\r\n\r\n```\r\ncode\r\n\r\nmore\r\n```\r\n\r\nThree',
  empty: '',
  blankOnly: '\n\n\n',
  startsBlank: '\n\nText after blank lines.\n\nMore.',
};

describe('markdownBlocks (markdown cut where rendering it in pieces changes nothing)', () => {
  for (const [name, source] of Object.entries(SAMPLES)) {
    it(`renders the same in blocks: ${name}`, () => {
      assertSameRendering(source);
    });
  }

  it('cuts at blank lines between paragraphs, headings and fenced blocks, never inside a fence', () => {
    assert.deepEqual(markdownBlocks(SAMPLES['fence']!), ['Look:\n\n', '```ts\nconst a = 1;\n\nconst b = 2;\n\n// still code\n```\n\n', 'After the code.\n']);
    assert.deepEqual(markdownBlocks(SAMPLES['heading']!).length, 4);
  });

  it('keeps a loose list, an indented code block and text with link references whole', () => {
    assert.deepEqual(markdownBlocks(SAMPLES['looseList']!), ['- one\n\n- two\n\n  more of two\n\n- three\n\n', 'After the list.']);
    assert.deepEqual(markdownBlocks(SAMPLES['indentedCode']!), ['Para\n\n    code line 1\n\n    code line 2\n\n', 'Para again']);
    const references = 'See [the docs][docs].\n\nMore text.\n\n[docs]: https://example.com';
    assert.deepEqual(markdownBlocks(references), [references]);
    assertSameRendering(references);
  });

  it('renders the same for random documents built from every kind of block', () => {
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const parts = Object.values(SAMPLES);
    for (let i = 0; i < 300; i++) {
      const count = 1 + Math.floor(random() * 5);
      const separators = ['\n', '\n\n', '\n\n\n', ''];
      let source = '';
      for (let k = 0; k < count; k++) source += parts[Math.floor(random() * parts.length)]! + separators[Math.floor(random() * separators.length)]!;
      assertSameRendering(source);
    }
  });

  it('streams: a growing message keeps its earlier blocks as they were', () => {
    const full = SAMPLES['heading']! + SAMPLES['fence']! + SAMPLES['paragraphs']!;
    let previous: string[] = [];
    for (let at = 1; at <= full.length; at += 7) {
      const blocks = markdownBlocks(full.slice(0, at));
      // Every block but the last of the previous cut is still a block now (only the last one grows).
      assert.deepEqual(blocks.slice(0, Math.max(0, previous.length - 1)), previous.slice(0, -1), `at ${at}`);
      previous = blocks;
    }
  });
});
