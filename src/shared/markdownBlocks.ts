/**
 * Markdown cut into top-level blocks that render the same one by one as all together, so a message that
 * streams in re-renders only its last block, and a long one can be rendered a few blocks at a time. A cut
 * is made only where nothing can carry over: at a blank line, outside a fenced code block, before a line
 * that starts at the margin and does not start a list item (an indented line may continue a list or an
 * indented code block; a list item may belong to a loose list). Text with link reference definitions
 * (`[name]: url`, which apply to the whole document) stays one block. No DOM; the chat's markdown view uses it.
 */

const REFERENCE_DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

/** The blocks of `source`, in order; joined they are `source` exactly. */
export function markdownBlocks(source: string): string[] {
  if (REFERENCE_DEFINITION.test(source)) return [source];
  const blocks: string[] = [];
  let blockStart = 0;
  let previousBlank = false;
  let fence: { char: string; length: number } | undefined;
  for (let lineStart = 0; lineStart < source.length;) {
    const newline = source.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? source.length : newline + 1;
    const line = source.slice(lineStart, newline === -1 ? source.length : newline);
    const blank = line.trim() === '';
    if (fence) {
      const close = FENCE.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length && line.slice(close[0].length).trim() === '') fence = undefined;
    } else {
      if (previousBlank && !blank && lineStart > blockStart && !/^\s/.test(line) && !LIST_ITEM.test(line)) {
        blocks.push(source.slice(blockStart, lineStart));
        blockStart = lineStart;
      }
      const open = FENCE.exec(line);
      // A backtick fence's info string cannot hold a backtick; such a line is no fence.
      if (open && !(open[1]![0] === '`' && line.slice(open[0].length).includes('`'))) fence = { char: open[1]![0]!, length: open[1]!.length };
    }
    previousBlank = blank;
    lineStart = lineEnd;
  }
  if (blockStart < source.length || blocks.length === 0) blocks.push(source.slice(blockStart));
  return blocks;
}
