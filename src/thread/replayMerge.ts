/**
 * A chat that already shows its conversation and is reopened with `session/load` (after a crash, with other
 * folders, on an agent that cannot resume) gets the whole history replayed. The replay is the agent's record,
 * so it replaces the conversation and each message shows once; but some of what the chat showed is the
 * client's alone and no replay brings it back: turn ends, errors (the crash), notes, refusals, permission
 * answers, terminals the agent ran outside a tool call, and tool calls the agent never recorded (the one it
 * crashed in). Those are kept, each after the
 * entry it followed before, like Zed and Claude Code keep their own notices around a reloaded transcript.
 */
import type { ViewEntry } from '../shared/chatModel';

/** Whether a tool call may still be finished by its turn (ACP's pending and in_progress). */
export function isUnfinished(status: string): boolean {
  return status === 'pending' || status === 'in_progress';
}

/**
 * The replayed entries with what only the client showed put back in place. `before` is what the chat
 * showed, `replay` what the agent replayed; ids of both stay as they are (they never collide: a thread
 * never reuses an id).
 */
export function keepAcrossReplay(before: readonly ViewEntry[], replay: readonly ViewEntry[]): ViewEntry[] {
  // A chat that showed nothing (opened for the replay): nothing to keep, and no text to compare.
  if (before.length === 0) return replay.slice();
  const positions = new Map<string, number[]>();
  replay.forEach((entry, at) => {
    const key = replayKey(entry);
    if (key === undefined) return;
    const list = positions.get(key);
    if (list) list.push(at);
    else positions.set(key, [at]);
  });
  /** Per key, the first of its positions not used or passed yet. */
  const cursor = new Map<string, number>();
  /** Entries kept from before, by the replay position they follow (-1: before the first). */
  const kept = new Map<number, ViewEntry[]>();
  /** Tool calls found in both: the chat's finished status wins over a replay that stops mid-call. */
  const finished = new Map<number, ViewEntry>();
  let anchor = -1;
  const keep = (entry: ViewEntry) => {
    const list = kept.get(anchor);
    if (list) list.push(entry);
    else kept.set(anchor, [entry]);
  };

  for (const entry of before) {
    const key = replayKey(entry);
    if (key === undefined) {
      keep(entry);
      continue;
    }
    const list = positions.get(key) ?? [];
    let next = cursor.get(key) ?? 0;
    while (next < list.length && list[next]! <= anchor) next++;
    let found: number | undefined = list[next];
    // Messages are keyed by a hash of their text: a match is checked against the text itself.
    if (found !== undefined && !sameText(entry, replay[found]!)) found = undefined;
    cursor.set(key, found === undefined ? next : next + 1);
    if (found !== undefined) {
      anchor = found;
      const replayed = replay[found]!;
      if (entry.kind === 'tool' && replayed.kind === 'tool' && isUnfinished(replayed.status) && !isUnfinished(entry.status)) {
        finished.set(found, { ...replayed, status: entry.status });
      }
    } else if (entry.kind === 'tool') {
      // The agent did not record this call (it stopped in it): what the chat showed of it stays.
      keep(entry);
    }
    // A message the replay does not have is left to the agent's record: kept, it could show twice.
  }

  const merged: ViewEntry[] = [...(kept.get(-1) ?? [])];
  replay.forEach((entry, at) => {
    merged.push(finished.get(at) ?? entry);
    merged.push(...(kept.get(at) ?? []));
  });
  return merged;
}

/**
 * Where a turn's prompt is in a chat: the prompt's text as a key (see {@link replayKey}), and how many prompts
 * came before it with that text and in all. What only the client knows of a turn (what it changed) is put back
 * after it by this when the agent replays the conversation into a new chat (after a window reload).
 */
export interface TurnAnchor {
  readonly key: string;
  readonly occurrence: number;
  readonly ordinal: number;
}

/** The anchor of the chat's last prompt (the turn that is starting), if it shows one. */
export function lastPromptAnchor(entries: readonly ViewEntry[]): TurnAnchor | undefined {
  let last = -1;
  for (let i = entries.length - 1; i >= 0 && last === -1; i--) if (entries[i]!.kind === 'user') last = i;
  if (last === -1) return undefined;
  const key = replayKey(entries[last]!)!;
  let occurrence = 0;
  let ordinal = 0;
  for (let i = 0; i < last; i++) {
    if (entries[i]!.kind !== 'user') continue;
    ordinal++;
    if (replayKey(entries[i]!) === key && sameText(entries[i]!, entries[last]!)) occurrence++;
  }
  return { key, occurrence, ordinal };
}

/** Conversation entries: what a turn ends with before the client's own notes. */
const CONVERSATION = new Set<ViewEntry['kind']>(['user', 'agent', 'thought', 'tool', 'plan', 'notice', 'unknown']);

/**
 * `entries` with each addition put at the end of the turn its anchor names: after the turn's last message or
 * tool call, before the next prompt and before notes the client added after the conversation. The prompt is
 * found by its text (the `occurrence`th prompt with it), else by its position when the chat shows as many
 * prompts; an addition whose prompt is not shown is left out. Returns the entries and the additions placed.
 */
export function placeAfterTurns(
  entries: readonly ViewEntry[],
  additions: readonly { readonly anchor: TurnAnchor; readonly entry: ViewEntry }[],
): { entries: ViewEntry[]; placed: ViewEntry[] } {
  const prompts: number[] = [];
  const byKey = new Map<string, number[]>();
  entries.forEach((entry, at) => {
    if (entry.kind !== 'user') return;
    prompts.push(at);
    const key = replayKey(entry)!;
    const list = byKey.get(key);
    if (list) list.push(at);
    else byKey.set(key, [at]);
  });
  /** Additions by the index of the entry they follow. */
  const after = new Map<number, ViewEntry[]>();
  const placed: ViewEntry[] = [];
  for (const { anchor, entry } of additions) {
    const prompt = byKey.get(anchor.key)?.[anchor.occurrence] ?? prompts[anchor.ordinal];
    if (prompt === undefined) continue;
    const next = prompts.find((p) => p > prompt) ?? entries.length;
    let end = next - 1;
    while (end > prompt && !CONVERSATION.has(entries[end]!.kind)) end--;
    const list = after.get(end);
    if (list) list.push(entry);
    else after.set(end, [entry]);
    placed.push(entry);
  }
  if (placed.length === 0) return { entries: entries.slice(), placed };
  const merged: ViewEntry[] = [];
  entries.forEach((entry, at) => {
    merged.push(entry);
    merged.push(...(after.get(at) ?? []));
  });
  return { entries: merged, placed };
}

/** The texts a message is compared by: its text blocks in order, or a thought's text. */
function messageTexts(entry: ViewEntry): readonly string[] | undefined {
  if (entry.kind === 'user' || entry.kind === 'agent') return entry.blocks.map((b) => (b.type === 'text' ? b.text : ''));
  if (entry.kind === 'thought') return [entry.text];
  return undefined;
}

/**
 * What identifies an entry of the conversation in a replay; undefined for what only the client shows. A
 * message is keyed by its text with every run of whitespace as one space and none at either end (the chat
 * joined streamed chunks, the agent may record the message whole), as the length and two hashes of that
 * text, computed without building it: a replay of 60,000 messages is keyed in a few milliseconds.
 */
function replayKey(entry: ViewEntry): string | undefined {
  switch (entry.kind) {
    case 'user':
    case 'agent':
    case 'thought':
      return `${entry.kind}\u0000${textHash(messageTexts(entry)!)}`;
    case 'tool':
      return `tool\u0000${entry.toolCallId}`;
    case 'plan':
      return `plan\u0000${entry.entries.map((e) => e.content).join('\u0000')}`;
    case 'notice':
      return `notice\u0000${entry.title}`;
    case 'unknown':
      return `unknown\u0000${entry.tag}\u0000${entry.raw}`;
    case 'turnEnd':
    case 'terminal':
    case 'error':
    case 'info':
    case 'refusal':
    case 'permission':
    case 'changes':
      return undefined;
  }
}

/** Whether `code` is whitespace as `\s` in a regular expression has it. */
function isSpace(code: number): boolean {
  return (
    (code >= 9 && code <= 13) ||
    code === 32 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** The characters of texts read one after the other, whitespace runs as one space, none at either end. */
class NormalizedText {
  private text = 0;
  private at = 0;
  private space = false;
  private started = false;

  constructor(private readonly texts: readonly string[]) {}

  /** The next character code, or -1 at the end. */
  next(): number {
    for (;;) {
      const text = this.texts[this.text];
      if (text === undefined) return -1;
      if (this.at >= text.length) {
        this.text++;
        this.at = 0;
        continue;
      }
      const code = text.charCodeAt(this.at);
      if (isSpace(code)) {
        this.at++;
        if (this.started) this.space = true;
        continue;
      }
      if (this.space) {
        // The run of whitespace before this character, as one space (the character comes next time).
        this.space = false;
        return 32;
      }
      this.at++;
      this.started = true;
      return code;
    }
  }
}

function textHash(texts: readonly string[]): string {
  let h1 = 0x811c9dc5;
  let h2 = 5381;
  let length = 0;
  let space = false;
  for (const text of texts) {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      // Printable ASCII first: most characters, one comparison.
      if (code > 32 && code < 127 ? false : isSpace(code)) {
        space = length > 0;
        continue;
      }
      if (space) {
        h1 = Math.imul(h1 ^ 32, 16777619);
        h2 = (Math.imul(h2, 33) + 32) | 0;
        length++;
        space = false;
      }
      h1 = Math.imul(h1 ^ code, 16777619);
      h2 = (Math.imul(h2, 33) + code) | 0;
      length++;
    }
  }
  return `${length}:${h1 >>> 0}:${h2 >>> 0}`;
}

/** Whether two entries with the same key show the same text (always, for what is not a message). */
function sameText(a: ViewEntry, b: ViewEntry): boolean {
  const left = messageTexts(a);
  const right = messageTexts(b);
  if (!left || !right) return true;
  // Mostly the very same text (compared natively); else character by character, whitespace runs as one.
  if (left.length === right.length && left.every((text, i) => text === right[i])) return true;
  const x = new NormalizedText(left);
  const y = new NormalizedText(right);
  for (;;) {
    const code = x.next();
    if (code !== y.next()) return false;
    if (code === -1) return true;
  }
}
