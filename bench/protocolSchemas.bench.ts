/**
 * Reading `session/update` with our hand-written schemas (src/acp/schema, about 1,150 lines per protocol
 * version) or with the zod the SDK generates from the official JSON Schema: is the generated one fast enough,
 * and what does it accept? One long mixed stream of `session/update` params (every v1 variant, chunk sizes from
 * a token to 4 KB, tool calls with diffs, plans, commands) with the cases the project's tolerance is for mixed
 * in (about 1 % each): an unknown variant, an enum value the schema does not list, a list with one bad item, a
 * content block of an unknown type. Each line is decoded and validated (`JSON.parse` + `safeParse`) by
 *
 *   - ours:            src/acp/schema's SessionNotification (open enums, `$unknown` variants, skip-invalid items);
 *   - sdk 2.4 v1:      @agentclientprotocol/sdk's generated v1 zod (dist/v1/schema/zod.gen.js);
 *   - sdk 2.4 v1 + $unknown: the same, with an unknown variant kept as `$unknown` (what keeping our
 *                      tolerance would add on top of it: a wrapper around the generated union);
 *   - sdk-v1 1.9:      @agentclientprotocol/sdk-v1's generated zod (dist/schema/zod.gen.js).
 *
 * Cold: each schema set is loaded (its module evaluated: the schemas built) and its first line parsed in this
 * run, timed apart ("load", "first parse"); the stream is then read by each in turn, interleaved, several
 * times, and the median is reported with the generated ones as a ratio of ours, and how many lines each
 * accepted (a line it rejects is a whole notification lost); then which tolerance case each keeps. (The
 * "+ $unknown" row loads nothing new: its module is loaded by the row before.)
 * Usage: node out/bench/protocolSchemas.bench.js [--updates N] [--runs N]
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import type * as Updates from '../src/acp/schema/updates';
import { median, parseArgs, printTable } from './util';

const { updates: UPDATES, runs: RUNS } = parseArgs({ updates: 50_000, runs: 5 });

interface SafeParser {
  safeParse(value: unknown): { success: boolean };
}

/** Deterministic mix of v1 updates, the tolerance cases about 1 % each. */
export function makeLines(count: number): string[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const text = (size: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(size / 27)).slice(0, size);
  const sizes = [4, 12, 30, 80, 400, 4000];
  const weights = [0.35, 0.3, 0.2, 0.1, 0.04, 0.01];
  const chunkSize = () => {
    const r = random();
    let acc = 0;
    for (let k = 0; k < sizes.length; k++) if (r <= (acc += weights[k]!)) return sizes[k]!;
    return sizes[0]!;
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = random();
    let update: Record<string, unknown>;
    if (r < 0.01) update = { sessionUpdate: 'future_update', detail: { n: i } };
    else if (r < 0.02) update = { sessionUpdate: 'tool_call', toolCallId: `c${i}`, title: 'Teleport', kind: 'teleport', status: 'queued' };
    else if (r < 0.03)
      update = {
        sessionUpdate: 'plan',
        entries: [{ content: 'Read', priority: 'high', status: 'completed' }, { content: 5 }, { content: 'Write', priority: 'low', status: 'pending' }],
      };
    else if (r < 0.04) update = { sessionUpdate: 'agent_message_chunk', content: { type: 'hologram', data: 'x' } };
    else if (r < 0.1) {
      update = {
        sessionUpdate: 'tool_call',
        toolCallId: `c${i}`,
        title: `Edit src/file${i % 97}.ts`,
        kind: 'edit',
        status: 'pending',
        content: [{ type: 'diff', path: `/w/app/src/file${i % 97}.ts`, oldText: text(300), newText: text(320) }],
        locations: [{ path: `/w/app/src/file${i % 97}.ts`, line: i % 400 }],
        rawInput: { file_path: `/w/app/src/file${i % 97}.ts` },
      };
    } else if (r < 0.16)
      update = {
        sessionUpdate: 'tool_call_update',
        toolCallId: `c${i - 3}`,
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: text(chunkSize()) } }],
      };
    else if (r < 0.18)
      update = {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the code', priority: 'high', status: 'completed' },
          { content: 'Change it', priority: 'medium', status: 'in_progress' },
        ],
      };
    else if (r < 0.19)
      update = {
        sessionUpdate: 'available_commands_update',
        availableCommands: [
          { name: 'review', description: 'Review the changes', input: { hint: 'what' } },
          { name: 'init', description: 'Write AGENTS.md' },
        ],
      };
    else if (r < 0.2) update = { sessionUpdate: 'current_mode_update', currentModeId: 'code' };
    else if (r < 0.21) update = { sessionUpdate: 'session_info_update', title: `Session ${i}`, updatedAt: '2026-11-29T08:00:00Z' };
    else if (r < 0.22) update = { sessionUpdate: 'usage_update', used: i, size: 200_000 };
    else
      update = {
        sessionUpdate: i % 7 === 0 ? 'agent_thought_chunk' : 'agent_message_chunk',
        messageId: `m${i >> 6}`,
        content: { type: 'text', text: text(chunkSize()) },
      };
    lines.push(JSON.stringify({ sessionId: 'sess_bench', update }));
  }
  return lines;
}

/** Decodes and validates every line; the milliseconds and how many were accepted. */
function read(schema: SafeParser, lines: readonly string[]): { ms: number; accepted: number } {
  const started = performance.now();
  let accepted = 0;
  for (const line of lines) if (schema.safeParse(JSON.parse(line)).success) accepted++;
  return { ms: performance.now() - started, accepted };
}

interface Variant {
  readonly name: string;
  readonly load: () => Promise<SafeParser>;
}

const root = path.resolve(__dirname, '..', '..');
const generated = (file: string) =>
  import(pathToFileURL(path.join(root, 'node_modules', '@agentclientprotocol', file)).href) as Promise<Record<string, z.ZodType>>;

/** The generated v1 union with an unknown variant kept as `$unknown` (our tolerance, as a wrapper). */
function withUnknownVariants(schemas: Record<string, z.ZodType>): SafeParser {
  const known = new Set([
    'user_message_chunk',
    'agent_message_chunk',
    'agent_thought_chunk',
    'tool_call',
    'tool_call_update',
    'plan',
    'available_commands_update',
    'current_mode_update',
    'config_option_update',
    'session_info_update',
    'usage_update',
    'notice',
    'compaction_update',
    'compaction_summary_chunk',
  ]);
  const unknownVariant = z
    .looseObject({ sessionUpdate: z.string().refine((tag) => !known.has(tag)) })
    .transform((raw) => ({ sessionUpdate: '$unknown' as const, tag: raw.sessionUpdate, raw }));
  return z.object({ sessionId: schemas.zSessionId!, update: z.union([schemas.zSessionUpdate!, unknownVariant]), _meta: z.optional(z.unknown()) });
}

const VARIANTS: readonly Variant[] = [
  // Loaded here, not at the top, so its load is timed like the others'.
  {
    name: 'ours',
    load: async () =>
      ((await import(pathToFileURL(path.join(__dirname, '..', 'src', 'acp', 'schema', 'updates.js')).href)) as typeof Updates).SessionNotification,
  },
  { name: 'sdk 2.4 v1', load: async () => (await generated('sdk/dist/v1/schema/zod.gen.js')).zSessionNotification! },
  { name: 'sdk 2.4 v1 + $unknown', load: async () => withUnknownVariants(await generated('sdk/dist/v1/schema/zod.gen.js')) },
  { name: 'sdk-v1 1.9', load: async () => (await generated('sdk-v1/dist/schema/zod.gen.js')).zSessionNotification! },
];

/** One line of each tolerance case, for the table of what each schema set keeps. */
const CASES: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['unknown variant', { sessionUpdate: 'future_update', detail: {} }],
  ['unknown enum value', { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Teleport', kind: 'teleport', status: 'queued' }],
  ['list with a bad item', { sessionUpdate: 'plan', entries: [{ content: 'Read', priority: 'high', status: 'completed' }, { content: 5 }] }],
  ['unknown content block', { sessionUpdate: 'agent_message_chunk', content: { type: 'hologram', data: 'x' } }],
  ['1 MB text chunk', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x'.repeat(1024 * 1024) } }],
];

async function main(): Promise<void> {
  const lines = makeLines(UPDATES);
  const bytes = lines.reduce((sum, line) => sum + line.length + 1, 0);
  console.log(
    `${UPDATES.toLocaleString('en')} session/update params (${(bytes / 1024 / 1024).toFixed(1)} MB), ${RUNS} runs each, interleaved; node ${process.version}`,
  );
  const loaded: Array<{ variant: Variant; schema: SafeParser; loadMs: number; firstMs: number; times: number[]; accepted: number }> = [];
  for (const variant of VARIANTS) {
    const started = performance.now();
    const schema = await variant.load();
    const loadMs = performance.now() - started;
    const first = performance.now();
    schema.safeParse(JSON.parse(lines[0]!));
    loaded.push({ variant, schema, loadMs, firstMs: performance.now() - first, times: [], accepted: 0 });
  }
  for (let run = 0; run < RUNS; run++) {
    for (const entry of loaded) {
      const { ms, accepted } = read(entry.schema, lines);
      entry.times.push(ms);
      entry.accepted = accepted;
    }
  }
  const ours = median(loaded[0]!.times);
  printTable(
    ['schemas', 'load ms', 'first parse ms', 'stream ms (median)', 'µs/update', 'vs ours', 'accepted'],
    loaded.map((e) => {
      const m = median(e.times);
      return [
        e.variant.name,
        e.loadMs.toFixed(1),
        e.firstMs.toFixed(2),
        m.toFixed(0),
        ((m * 1000) / UPDATES).toFixed(2),
        `${(m / ours).toFixed(2)}×`,
        `${e.accepted.toLocaleString('en')} of ${UPDATES.toLocaleString('en')}`,
      ];
    }),
  );
  console.log('');
  printTable(
    ['kept (not rejected)', ...loaded.map((e) => e.variant.name)],
    CASES.map(([name, update]) => [name, ...loaded.map((e) => (e.schema.safeParse({ sessionId: 's', update }).success ? 'kept' : 'REJECTED'))]),
  );
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
