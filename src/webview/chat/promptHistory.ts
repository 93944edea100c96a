/**
 * Prompt history in the prompt box, as terminals and Copilot Chat do it: Up walks back through this session's
 * earlier prompts when the box is empty or the caret is on its first line, Down walks forward when the caret
 * is on the last line, and Down past the newest brings back what was being typed. Typing ends the walk.
 */
import { useRef, type MutableRef } from 'preact/hooks';
import type { ViewEntry } from '../../shared/chatModel';

/** The text of the user's prompts in a transcript, oldest first (a prompt repeated in a row counts once). */
export function promptsOf(entries: readonly ViewEntry[]): string[] {
  const prompts: string[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'user') continue;
    const text = entry.blocks
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('\n')
      .trim();
    if (text && prompts[prompts.length - 1] !== text) prompts.push(text);
  }
  return prompts;
}

export interface PromptHistory {
  /** Walks one step (-1 back, +1 forward) if the caret allows; true when it did (the key is consumed). */
  step(direction: -1 | 1): boolean;
  /** The user typed or sent: the walk is over. */
  reset(): void;
}

export function usePromptHistory(
  prompts: () => readonly string[],
  input: MutableRef<HTMLTextAreaElement | null>,
  text: string,
  setText: (text: string) => void,
): PromptHistory {
  /** Where the walk is, and what was typed before it began. */
  const walk = useRef<{ index: number; typed: string } | undefined>(undefined);

  const place = (value: string, caret: 'start' | 'end') => {
    setText(value);
    requestAnimationFrame(() => {
      const element = input.current;
      const at = caret === 'start' ? 0 : value.length;
      element?.setSelectionRange(at, at);
    });
  };

  return {
    step(direction) {
      const element = input.current;
      if (!element || element.selectionStart !== element.selectionEnd) return false;
      const caret = element.selectionStart;
      const onFirstLine = !text.slice(0, caret).includes('\n');
      const onLastLine = !text.slice(caret).includes('\n');
      const list = prompts();
      if (direction === -1) {
        if (!(text === '' || onFirstLine)) return false;
        const index = (walk.current?.index ?? list.length) - 1;
        if (index < 0) return walk.current !== undefined; // at the oldest: stay
        walk.current = { index, typed: walk.current?.typed ?? text };
        // The caret goes to the start, so Up again keeps walking back through a prompt of several lines.
        place(list[index] ?? '', 'start');
        return true;
      }
      if (!walk.current || !onLastLine) return false;
      const index = walk.current.index + 1;
      if (index >= list.length) {
        const typed = walk.current.typed;
        walk.current = undefined;
        place(typed, 'end');
      } else {
        walk.current = { ...walk.current, index };
        place(list[index] ?? '', 'end');
      }
      return true;
    },
    reset() {
      walk.current = undefined;
    },
  };
}
