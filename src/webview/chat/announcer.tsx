/**
 * What a screen reader hears of a chat, politely and in whole pieces: that the agent is working, each of
 * its messages once complete (not every streamed chunk: the transcript itself is a log that does not
 * announce), and that it finished or disconnected.
 */
import * as l10n from '@vscode/l10n';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ViewEntry, ViewSessionState } from '../../shared/chatModel';

/** Longest announcement: a long answer is read from the transcript, not the live region. */
export const ANNOUNCE_LIMIT = 1500;

/** An agent message as plain text (markdown markers dropped), bounded. */
export function spokenText(entry: ViewEntry): string {
  if (entry.kind !== 'agent') return '';
  const text = entry.blocks
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('')
    .replace(/```[^\n]*\n?/g, '')
    .replace(/^\s{0,3}(?:#{1,6}|>|[-*+])\s+/gm, '')
    .replace(/(\*\*|__|[*`~])/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > ANNOUNCE_LIMIT ? l10n.t('{0}… (continued in the conversation)', text.slice(0, ANNOUNCE_LIMIT)) : text;
}

/**
 * The announcements of a state change: `previous` → `next` (entries and status). `from`: entries before it
 * were looked at by an earlier call (a long transcript is not walked again at every streamed frame).
 */
export function announcements(
  previous: { status: ViewSessionState['status']; entries: readonly ViewEntry[] },
  next: { status: ViewSessionState['status']; entries: readonly ViewEntry[]; agentName: string },
  spoken: Set<string>,
  from = 0,
): string[] {
  const out: string[] = [];
  if (previous.status !== 'running' && next.status === 'running') out.push(`${next.agentName} is working…`);
  // A message is complete once something follows it, or the turn has ended.
  const turnOver = previous.status === 'running' && next.status !== 'running';
  for (let i = Math.max(0, from); i < next.entries.length; i++) {
    const entry = next.entries[i]!;
    if (entry.kind !== 'agent' || spoken.has(entry.id)) continue;
    if (i === next.entries.length - 1 && next.status === 'running') continue;
    spoken.add(entry.id);
    // Only what arrives during a turn is said (a replayed history is not read out, nor made into text).
    if (!turnOver && next.status !== 'running') continue;
    const text = spokenText(entry);
    if (text) out.push(text);
  }
  if (turnOver) out.push(next.status === 'disconnected' ? `${next.agentName} disconnected.` : `${next.agentName} finished.`);
  return out;
}

export function Announcer(props: { session: ViewSessionState; entries: readonly ViewEntry[] }) {
  const { session, entries } = props;
  const [text, setText] = useState('');
  const previous = useRef<{ status: ViewSessionState['status']; entries: readonly ViewEntry[] } | undefined>(undefined);
  const spoken = useRef(new Set<string>());
  /** Entries before this were looked at already (the last one may still be streaming). */
  const from = useRef(0);
  useEffect(() => {
    const before = previous.current;
    previous.current = { status: session.status, entries };
    if (!before) {
      // What was there when the view opened (a restored transcript) is not read out.
      for (const entry of entries) spoken.current.add(entry.id);
      from.current = Math.max(0, entries.length - 1);
      return;
    }
    // A transcript that started over (a replay) is looked at from its start.
    if (entries.length < before.entries.length || entries[0]?.id !== before.entries[0]?.id) from.current = 0;
    const said = announcements(before, { status: session.status, entries, agentName: session.agentName }, spoken.current, from.current);
    from.current = Math.max(0, entries.length - 1);
    if (said.length > 0) setText(said.join('\n'));
  }, [session.status, session.agentName, entries]);
  return (
    <div class="visually-hidden announcer" role="status" aria-live="polite" aria-atomic="true">
      {text}
    </div>
  );
}
