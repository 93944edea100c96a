/** The words of a conversation, for full-text search in the local session history. */
import type { ViewEntry } from '../shared/chatModel';
import { isSlashCommand } from './sessionTitle';

/** User and agent messages as plain text, in order ("User: …", "Agent: …"). */
export function transcriptText(entries: readonly ViewEntry[]): string {
  const parts: string[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'user' && entry.kind !== 'agent') continue;
    const text = entry.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    if (text.trim()) parts.push(`${entry.kind === 'user' ? 'User' : 'Agent'}: ${text}`);
  }
  return parts.join('\n\n');
}

/** The text of the first user message that is not a slash command (for the title it gives the session), if any. */
export function firstPromptText(entries: readonly ViewEntry[]): string | undefined {
  for (const entry of entries) {
    if (entry.kind !== 'user') continue;
    const text = entry.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    if (!isSlashCommand(text)) return text;
  }
  return undefined;
}
