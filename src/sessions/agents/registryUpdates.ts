/**
 * Which registry updates to announce: one notification per new version of an installed agent, never the same
 * version twice (the record survives reloads in global state, read back with zod).
 */
import * as z from 'zod';
import type { AgentUpdate } from './registryAgents';

/** Registry id → the version last announced for it. */
export const AnnouncedUpdates = z.record(z.string().max(200), z.string().max(200));
export type AnnouncedUpdates = z.output<typeof AnnouncedUpdates>;

/**
 * The updates not announced yet, and the record to keep: the versions announced now and before, for the agents
 * that still have an update (so it stays as small as the list of installed agents). A stored record that does
 * not read is treated as empty.
 */
export function updatesToAnnounce(updates: readonly AgentUpdate[], stored: unknown): { announce: AgentUpdate[]; record: AnnouncedUpdates } {
  const parsed = AnnouncedUpdates.safeParse(stored);
  const before: AnnouncedUpdates = parsed.success ? parsed.data : {};
  const announce = updates.filter((update) => before[update.id] !== update.available);
  const record: AnnouncedUpdates = {};
  for (const update of updates) record[update.id] = update.available;
  return { announce, record };
}
