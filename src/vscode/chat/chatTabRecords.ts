/**
 * Which session each chat tab shows, kept by the host (the workspace's state) under an id the tab carries in
 * its webview options, which VS Code stores with the tab whether or not its webview ever ran.
 *
 * A chat tab's own state (src/webview/chat/persist.ts) is written by its webview's script, and VS Code runs that
 * script only once the tab has been shown: a tab opened behind another (Start One Session per Folder opens all
 * but the last one so) and never looked at has no state when the window reloads. Its record here is how it
 * comes back with its session.
 */
import * as vscode from 'vscode';
import * as z from 'zod/mini';
import { ChatViewState } from '../../shared/chatProtocol';

const KEY = 'acpWorkspace.chatTabs';
/** Records kept (the most recently written ones): far more than the tabs anyone has open. */
export const MAX_TAB_RECORDS = 200;

/** What a tab's record holds: the part of {@link ChatViewState} the host knows. */
export type ChatTabRecord = Pick<ChatViewState, 'agentName' | 'sessionId' | 'title' | 'roots'>;

const Stored = z.array(z.tuple([z.string().check(z.minLength(1)), z.unknown()]));

/** The folder (under the webview's resource root) whose name carries a tab's id in its webview options. */
const MARKER = 'chat-tab';

/** The webview options of a chat tab: the webview's own, plus a root that names the tab (it grants nothing more). */
export function chatTabOptions(base: vscode.WebviewOptions, tabId: string): vscode.WebviewOptions {
  const roots = base.localResourceRoots ?? [];
  const first = roots[0];
  return first ? { ...base, localResourceRoots: [...roots, vscode.Uri.joinPath(first, MARKER, tabId)] } : base;
}

/** The id a chat tab carries in its webview options (VS Code keeps them across a reload), if any. */
export function chatTabId(panel: vscode.WebviewPanel): string | undefined {
  for (const root of panel.webview.options.localResourceRoots ?? []) {
    const parts = root.path.split('/');
    if (parts.at(-2) === MARKER && parts.at(-1)) return parts.at(-1);
  }
  return undefined;
}

export class ChatTabRecords {
  private readonly records = new Map<string, ChatTabRecord>();

  constructor(private readonly memento: vscode.Memento) {
    const stored = Stored.safeParse(memento.get(KEY));
    if (!stored.success) return;
    for (const [id, value] of stored.data) {
      const record = ChatViewState.safeParse(value);
      if (record.success)
        this.records.set(id, { agentName: record.data.agentName, sessionId: record.data.sessionId, title: record.data.title, roots: record.data.roots });
    }
  }

  get(tabId: string): ChatTabRecord | undefined {
    return this.records.get(tabId);
  }

  /** The session a tab shows (written when it changes). */
  set(tabId: string, record: ChatTabRecord): void {
    const known = this.records.get(tabId);
    if (known && sameRecord(known, record)) return;
    this.records.delete(tabId);
    this.records.set(tabId, record);
    while (this.records.size > MAX_TAB_RECORDS) this.records.delete(this.records.keys().next().value!);
    void this.memento.update(KEY, [...this.records]);
  }
}

function sameRecord(a: ChatTabRecord, b: ChatTabRecord): boolean {
  const roots = (r: ChatTabRecord) => (r.roots ?? []).join('\n');
  return a.agentName === b.agentName && a.sessionId === b.sessionId && a.title === b.title && roots(a) === roots(b);
}
