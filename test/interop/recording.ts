/**
 * Recordings of what real agents stream (`test/fixtures/updates/<agent>.jsonl`, the format of
 * scripts/record-updates.mjs: one raw `update` object per line, `{"$stopReason": …}` after each turn).
 * The thread reducer's unit tests fold every recording there.
 *
 * A run with `ACP_INTEROP_RECORD=1` (re)writes the recordings from what the agents send now; otherwise the
 * live turns are checked against them: both must fold into the same transcript (entry kinds, agent text,
 * tool titles and statuses), so a recording that no longer matches the pinned agent fails the test.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as acp from '../../src/acp/schema';
import { Thread } from '../../src/thread/thread';
import type { InteropClient } from './harness';
import { transcriptEvent } from '../../src/acp/v1/transcriptEvents';

export const UPDATES_DIR = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'updates');
const RECORD = process.env['ACP_INTEROP_RECORD'] === '1';

/** One turn as it came over the wire: the raw `update` objects, then the stop reason (none for a replay). */
export interface RecordedTurn {
  readonly updates: readonly unknown[];
  readonly stopReason?: string;
}

/** The raw `session/update` payloads the client received for `sessionId` since wire position `from`. */
export function rawUpdates(client: InteropClient, sessionId: string, from: number, to = client.wire.length): unknown[] {
  return client.wire.slice(from, to).flatMap(({ direction, message }) => {
    const params = message.params as { sessionId?: string; update?: unknown } | undefined;
    return direction === 'receive' && message.method === 'session/update' && params?.sessionId === sessionId ? [params.update] : [];
  });
}

/** Lines of a recording, with scratch paths replaced by stable placeholders. */
function toLines(turns: readonly RecordedTurn[], replacements: ReadonlyArray<readonly [string, string]>): string[] {
  const lines: string[] = [];
  for (const turn of turns) {
    for (const update of turn.updates) lines.push(JSON.stringify(update));
    if (turn.stopReason !== undefined) lines.push(JSON.stringify({ $stopReason: turn.stopReason }));
  }
  return lines.map((line) => replacements.reduce((text, [from, to]) => text.split(from).join(to), line));
}

/** What a transcript looks like once folded: one line per entry (kind, agent text, tool title and status). */
export function transcriptShape(lines: readonly string[]): string[] {
  const thread = new Thread({ agentName: 'recorded', roots: [], prompt: { image: false, audio: false, embeddedContext: false } });
  for (const line of lines) {
    const raw = JSON.parse(line) as Record<string, unknown>;
    if ('$stopReason' in raw) thread.endTurn(String(raw['$stopReason']));
    else thread.apply(transcriptEvent(acp.SessionNotification.parse({ sessionId: 'recorded', update: raw }).update));
  }
  return thread.snapshot().entries.map((entry) => {
    switch (entry.kind) {
      case 'agent':
      case 'user':
        return `${entry.kind}: ${entry.blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('')}`;
      case 'tool':
        return `tool (${entry.toolKind}): ${entry.title} [${entry.status}]`;
      case 'turnEnd':
        return `turnEnd: ${entry.stopReason}`;
      case 'unknown':
        return `unknown: ${entry.tag}`;
      default:
        return entry.kind;
    }
  });
}

/**
 * Writes the recording (ACP_INTEROP_RECORD=1) or checks that the live turns fold into the same transcript
 * as the recording. Returns the number of updates in the live turns.
 */
export function checkRecording(
  file: string,
  turns: readonly RecordedTurn[],
  replacements: ReadonlyArray<readonly [string, string]>,
  unsteady: {
    /** Text that differs from run to run (an id the agent makes up, a duration), compared as its placeholder. */
    readonly replace?: ReadonlyArray<readonly [RegExp, string]>;
    /** Entries the agent sends in some runs and not in others, left out on both sides. */
    readonly optional?: readonly RegExp[];
  } = {},
): number {
  const lines = toLines(turns, replacements);
  const target = path.join(UPDATES_DIR, file);
  if (RECORD) {
    fs.writeFileSync(target, `${lines.join('\n')}\n`);
    console.log(`      recorded ${lines.length} lines to test/fixtures/updates/${file}`);
  } else {
    assert.ok(fs.existsSync(target), `test/fixtures/updates/${file} is missing: run the interop tier with ACP_INTEROP_RECORD=1 to record it`);
    const recorded = fs
      .readFileSync(target, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const steady = (shape: string[]): string[] =>
      shape
        .filter((line) => !(unsteady.optional ?? []).some((pattern) => pattern.test(line)))
        .map((line) => (unsteady.replace ?? []).reduce((text, [pattern, placeholder]) => text.replace(pattern, placeholder), line));
    assert.deepEqual(
      steady(transcriptShape(lines)),
      steady(transcriptShape(recorded)),
      `the agent no longer streams what test/fixtures/updates/${file} recorded; if that is expected, re-record with ACP_INTEROP_RECORD=1`,
    );
  }
  return turns.reduce((n, t) => n + t.updates.length, 0);
}
