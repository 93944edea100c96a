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
    const found = list[next];
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

/** What identifies an entry of the conversation in a replay; undefined for what only the client shows. */
function replayKey(entry: ViewEntry): string | undefined {
  switch (entry.kind) {
    case 'user':
    case 'agent':
      return `${entry.kind}\u0000${normalized(entry.blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''))}`;
    case 'thought':
      return `thought\u0000${normalized(entry.text)}`;
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

function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
