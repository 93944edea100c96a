/**
 * How tall a transcript entry is likely to be before it was ever rendered, from its kind and the shape of
 * its text at a given width (the chat's CSS: 13 px text, markdown at 1.5 line height, entries 10 px apart).
 * Only used until the entry is measured; a good guess keeps the scrollbar honest and the corrections small.
 * No DOM; measured heights replace these (see transcriptLayout.ts).
 */
import type { ViewContent, ViewEntry, ViewToolContent } from './chatModel';

/** Space between two entries (each rendered entry sits in a slot with 5 px above and below). */
export const ENTRY_GAP = 10;
const PLAIN_LINE = 17;
const MARKDOWN_LINE = 19.5;
const CODE_LINE = 18;
/** The average width of a character of 13 px sans-serif text. */
const CHAR_WIDTH = 7;

/** A text of an entry, counted once: its characters, hard lines, blank lines and fenced code blocks. */
interface TextPart {
  readonly chars: number;
  readonly lines: number;
  readonly blankLines: number;
  readonly fences: number;
  readonly markdown: boolean;
  /** Horizontal space its frame takes from the content width (padding, borders). */
  readonly inset: number;
}

/** What the estimate of an entry needs: a fixed part and its texts (independent of the width). */
interface EntryShape {
  readonly fixed: number;
  readonly texts: readonly TextPart[];
}

/** Entries are immutable: each one's shape is counted once, whatever the width. */
const shapes = new WeakMap<ViewEntry, EntryShape>();

function text(value: string, markdown: boolean, inset: number): TextPart {
  let lines = 1;
  let blankLines = 0;
  let fences = 0;
  let lineStart = 0;
  for (let at = value.indexOf('\n'); at !== -1; at = value.indexOf('\n', at + 1)) {
    lines++;
    if (at === lineStart) blankLines++;
    else if (value.startsWith('```', lineStart)) fences++;
    lineStart = at + 1;
  }
  if (value.startsWith('```', lineStart)) fences++;
  return { chars: value.length, lines, blankLines, fences: fences >> 1, markdown, inset };
}

function blocks(list: readonly ViewContent[], markdown: boolean, inset: number): { other: number; texts: TextPart[] } {
  let joined = '';
  let other = 0;
  for (const block of list) {
    if (block.type === 'text') joined += block.text;
    else other += block.type === 'image' ? 160 : 24;
  }
  return { other, texts: joined ? [text(joined, markdown, inset)] : [] };
}

function toolContent(content: ViewToolContent): { fixed: number; texts: TextPart[] } {
  switch (content.type) {
    case 'content':
      return content.content.type === 'text' ? { fixed: 10, texts: [text(content.content.text, true, 24)] } : { fixed: 24, texts: [] };
    case 'diff':
      return { fixed: 30, texts: [] };
    case 'terminal':
      return { fixed: 30 + Math.min(256, text(content.output ?? '', false, 0).lines * CODE_LINE + 16), texts: [] };
    case 'unknown':
      return { fixed: 22, texts: [] };
  }
}

function shapeOf(entry: ViewEntry): EntryShape {
  switch (entry.kind) {
    case 'user': {
      const { other, texts } = blocks(entry.blocks, false, 24);
      return { fixed: ENTRY_GAP + 18 + other, texts };
    }
    case 'agent': {
      const { other, texts } = blocks(entry.blocks, true, 0);
      return { fixed: ENTRY_GAP + 10 + other, texts };
    }
    case 'thought':
      // Collapsed until the user opens it.
      return { fixed: ENTRY_GAP + 20, texts: [] };
    case 'tool': {
      let fixed = ENTRY_GAP + 14 + 22 + (entry.locations.length > 0 ? 26 : 0) + (entry.rawInput ? 20 : 0);
      const texts: TextPart[] = [];
      for (const content of entry.content) {
        const part = toolContent(content);
        fixed += part.fixed;
        texts.push(...part.texts);
      }
      return { fixed, texts };
    }
    case 'plan':
      return { fixed: ENTRY_GAP + 28 + entry.entries.length * 18, texts: [] };
    case 'notice':
      return { fixed: ENTRY_GAP + 12, texts: [text(entry.title, false, 40), ...(entry.description ? [text(entry.description, false, 40)] : [])] };
    case 'permission':
      return { fixed: ENTRY_GAP + (entry.state === 'pending' ? 82 : 18), texts: [] };
    case 'turnEnd':
      return { fixed: ENTRY_GAP + (entry.stopReason === 'end_turn' ? 7 : 24), texts: [] };
    case 'error':
      return {
        fixed: ENTRY_GAP + 50 + (entry.said ? Math.min(160, entry.said.length * CODE_LINE) : 0),
        texts: [text(entry.message, false, 40), ...(entry.advice ? [text(entry.advice, false, 40)] : [])],
      };
    case 'refusal':
      return { fixed: ENTRY_GAP + 12 + 3 * PLAIN_LINE, texts: [text(entry.message, false, 40)] };
    case 'info':
      return { fixed: ENTRY_GAP, texts: [text(entry.text, false, 0)] };
    case 'terminal':
      // Once a tool call shows the same terminal, this entry shows nothing.
      if (entry.inToolCall) return { fixed: 0, texts: [] };
      return { fixed: ENTRY_GAP + 14 + 30 + Math.min(256, text(entry.output ?? '', false, 0).lines * CODE_LINE + 16), texts: [] };
    case 'changes':
      return { fixed: ENTRY_GAP + 60 + entry.files.length * 22, texts: [] };
    case 'unknown':
      return { fixed: ENTRY_GAP + 22, texts: [] };
  }
}

function textHeight(part: TextPart, width: number): number {
  const perLine = Math.max(8, Math.floor(Math.max(120, width - part.inset) / CHAR_WIDTH));
  // Each hard line wraps on its own: about half a line is lost at the end of each.
  const lines = Math.max(part.lines, Math.ceil(part.chars / perLine + (part.lines - part.blankLines) / 2));
  return part.markdown ? lines * MARKDOWN_LINE + part.fences * 44 : lines * PLAIN_LINE;
}

/**
 * A guess of an entry's height in px (its gap included) at a content width of `width` px: its kind's frame
 * and its text's lines, wrapped. Entries that show nothing (a terminal a tool call shows) are 0. O(text) the
 * first time for an entry object, O(1) after that, at any width.
 */
export function estimateEntryHeight(entry: ViewEntry, width: number): number {
  let shape = shapes.get(entry);
  if (!shape) {
    shape = shapeOf(entry);
    shapes.set(entry, shape);
  }
  let height = shape.fixed;
  for (const part of shape.texts) height += textHeight(part, width);
  return Math.round(height);
}
