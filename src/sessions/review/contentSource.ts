/**
 * One side of a diff as a URI query (`acp-checkpoint:` documents, vscode/review/checkpointDocuments.ts): written
 * by the host, but read back from a URI anything can open, so read with zod like any state read back.
 */
import * as z from 'zod';

const side = { agentName: z.string(), sessionId: z.string(), root: z.string(), path: z.string() };

/** A file as one side of a diff has it: a checkpoint, the review base, or nothing (the file is absent). */
const ContentSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('checkpoint'), checkpointId: z.string(), ...side }).readonly(),
  z.object({ kind: z.literal('base'), key: z.string(), ...side }).readonly(),
  z.object({ kind: z.literal('absent'), ...side }).readonly(),
]);
export type ContentSource = z.output<typeof ContentSourceSchema>;

/** The URI query that stands for `source`. */
export function contentSourceQuery(source: ContentSource): string {
  return Buffer.from(JSON.stringify(source)).toString('base64url');
}

/** The source a URI query stands for; undefined when it does not read as one. */
export function readContentSourceQuery(query: string): ContentSource | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(query, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = ContentSourceSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
