/**
 * An in-memory {@link TranscriptSearch} for the Sessions model's tests: it keeps texts by record key and
 * answers like the real (off-thread) index does, only when the test says so (or at once in `auto` mode), so
 * a test can hold an answer back, supersede a question, and see which snippets were asked for.
 */
import { Emitter } from '../../../src/common/events';
import { snippetAround, type Snippet } from '../../../src/history/search';
import type { TranscriptSearchResult, TranscriptSearch } from '../../../src/history/transcriptSearch';

interface Question {
  readonly query: string;
  readonly signal: AbortSignal | undefined;
  readonly answer: () => void;
}

export class FakeTranscripts implements TranscriptSearch {
  version = 0;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly texts = new Map<string, string>();
  /** Questions not answered yet (in `auto` mode they are answered at once). */
  readonly waiting: Question[] = [];
  /** Every question asked, with whether it was aborted. */
  readonly asked: Array<{ query: string; signal: AbortSignal | undefined }> = [];
  /** The keys each snippet request asked for. */
  readonly snippetRequests: string[][] = [];

  constructor(private readonly auto = true) {}

  setText(key: string, text: string): void {
    this.texts.set(key, text);
    this.version++;
    this.changes.fire();
  }

  search(query: string, signal?: AbortSignal): Promise<TranscriptSearchResult> {
    this.asked.push({ query, signal });
    return new Promise((resolve, reject) => {
      const aborted = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
      if (signal?.aborted) return aborted();
      signal?.addEventListener('abort', aborted, { once: true });
      const answer = () => {
        const words = query.toLowerCase().split(/\s+/).filter(Boolean);
        const keys = new Set([...this.texts].filter(([, text]) => words.every((w) => text.toLowerCase().includes(w))).map(([key]) => key));
        resolve({ keys, searched: this.texts.size, complete: true });
      };
      if (this.auto) queueMicrotask(answer);
      else this.waiting.push({ query, signal, answer });
    });
  }

  /** Answers the oldest waiting question. */
  answerNext(): void {
    this.waiting.shift()!.answer();
  }

  snippets(query: string, keys: readonly string[], signal?: AbortSignal): Promise<ReadonlyMap<string, Snippet>> {
    this.snippetRequests.push([...keys]);
    if (signal?.aborted) return Promise.reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    const found = new Map<string, Snippet>();
    const needle = query.toLowerCase().split(/\s+/).filter(Boolean)[0] ?? '';
    for (const key of keys) {
      const text = this.texts.get(key);
      const snippet = text === undefined ? undefined : snippetAround(text, text.toLowerCase(), needle);
      if (snippet) found.set(key, snippet);
    }
    return Promise.resolve(found);
  }
}
