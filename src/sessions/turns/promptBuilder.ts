/**
 * What the user typed plus the context they attached, as the port's prompt blocks (and as
 * view blocks for the transcript). Files become `resource_link`s, or embedded `resource`s with their text
 * when the agent advertises `embeddedContext`; images are only sent to agents that take them. File
 * contents are read through the session's RootGuard, like an agent's own reads.
 */
import * as l10n from '@vscode/l10n';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentCaps, PromptBlock } from '../../acp/port/agentConnection';
import { readTextFile, type OpenDocuments } from '../../roots/guardedFs';
import type { RootGuard } from '../../roots/rootGuard';
import type { ViewContent } from '../../shared/chatModel';
import type { Attachment } from '../../shared/chatProtocol';
import { errorMessage } from '../../common/errors';

/** What the agent accepts in prompts beyond text and links. */
export type AcceptedPromptContent = Pick<AgentCaps['prompt'], 'image' | 'embeddedContext'>;

export interface BuiltPrompt {
  readonly blocks: PromptBlock[];
  readonly shown: ViewContent[];
  /** Attachments that could not be sent, with why (shown to the user). */
  readonly skipped: string[];
}

export async function buildPrompt(
  text: string,
  attachments: readonly Attachment[],
  caps: AcceptedPromptContent,
  guard: RootGuard,
  documents?: OpenDocuments,
): Promise<BuiltPrompt> {
  const blocks: PromptBlock[] = [];
  const shown: ViewContent[] = [];
  const skipped: string[] = [];
  if (text.length > 0) {
    blocks.push({ type: 'text', text });
    shown.push({ type: 'text', text });
  }
  for (const attachment of attachments) {
    switch (attachment.kind) {
      case 'file': {
        const uri = pathToFileURL(attachment.path).href;
        const name = path.basename(attachment.path);
        shown.push({ type: 'link', uri, name, title: attachment.label });
        if (caps.embeddedContext) {
          try {
            const content = await readTextFile(guard, { path: attachment.path }, documents);
            blocks.push({ type: 'resource', resource: { uri, text: content, mimeType: mimeTypeOf(attachment.path) } });
            break;
          } catch (error) {
            skipped.push(l10n.t('{0} was sent as a link only: {1}', attachment.label, errorMessage(error)));
          }
        }
        blocks.push({ type: 'resource_link', uri, name, title: attachment.label });
        break;
      }
      case 'selection': {
        const lines = `${attachment.startLine}-${attachment.endLine}`;
        const uri = `${pathToFileURL(attachment.path).href}#L${lines}`;
        shown.push({ type: 'resource', uri, text: attachment.text });
        if (caps.embeddedContext) {
          blocks.push({ type: 'resource', resource: { uri, text: attachment.text, mimeType: mimeTypeOf(attachment.path) } });
        } else {
          blocks.push({ type: 'text', text: `${attachment.path}, lines ${lines}:\n\`\`\`\n${attachment.text}\n\`\`\`` });
        }
        break;
      }
      case 'image':
        if (!caps.image) {
          skipped.push(l10n.t('{0} was not sent: the agent does not accept images.', attachment.label));
          break;
        }
        blocks.push({ type: 'image', mimeType: attachment.mimeType, data: attachment.data });
        shown.push({ type: 'image', mimeType: attachment.mimeType, dataUrl: `data:${attachment.mimeType};base64,${attachment.data}` });
        break;
    }
  }
  return { blocks, shown, skipped };
}

const MIME_TYPES: Record<string, string> = {
  '.ts': 'text/x-typescript',
  '.tsx': 'text/x-typescript',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.md': 'text/markdown',
  '.py': 'text/x-python',
  '.rs': 'text/x-rust',
  '.go': 'text/x-go',
  '.html': 'text/html',
  '.css': 'text/css',
};

function mimeTypeOf(file: string): string {
  return MIME_TYPES[path.extname(file).toLowerCase()] ?? 'text/plain';
}

/**
 * The glob that finds files for an @-mention query: any file whose path contains the query in any case
 * (`gre` becomes `[gG][rR][eE]` between two wildcards); glob syntax in the query is dropped.
 */
export function mentionGlob(query: string): string {
  const letters = [...query.replace(/[{}[\]*?!\\]/g, '')].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c));
  return letters.length === 0 ? '**/*' : `**/*${letters.join('')}*`;
}
