/**
 * A chat's transcript as Markdown: "Export Session as Markdown…" (to a file or the clipboard) and "Open
 * Transcript as Text", a read-only `acp-transcript:` document that follows the chat while it streams, so a
 * screen reader can read the conversation with the editor's accessibility support.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { chatTitle } from '../../shared/chatModel';
import { transcriptMarkdown } from '../../thread/markdown';
import type { ChatTab } from './chatActions';
import type { ChatTabs } from './chatTabs';
import { TRANSCRIPT_SCHEME } from '../contributionIds';
import { errorMessage } from '../../common/errors';

export const TranscriptCommandIds = {
  exportSession: 'acpWorkspace.exportSession',
  openTranscript: 'acpWorkspace.openTranscriptText',
} as const;

/** The export's questions (integration tests answer them instead of the real dialogs). */
export interface ExportUi {
  destination(title: string): Promise<'file' | 'clipboard' | undefined>;
  saveTo(defaultUri: vscode.Uri): Thenable<vscode.Uri | undefined>;
}

export const vscodeExportUi: ExportUi = {
  async destination(title) {
    const picked = await vscode.window.showQuickPick(
      [
        { label: `$(save) ${vscode.l10n.t('Save to File…')}`, destination: 'file' as const },
        { label: `$(copy) ${vscode.l10n.t('Copy to Clipboard')}`, destination: 'clipboard' as const },
      ],
      { title: vscode.l10n.t('Export “{0}” as Markdown', title), placeHolder: vscode.l10n.t('Where should the Markdown go?') },
    );
    return picked?.destination;
  },
  saveTo: (defaultUri) => vscode.window.showSaveDialog({ defaultUri, filters: { Markdown: ['md'] }, title: vscode.l10n.t('Export Session as Markdown') }),
};

/** Where the last export was saved (a folder path), in the extension's global state. */
const LAST_FOLDER_KEY = 'acpWorkspace.export.lastFolder';

/**
 * The folder the Save dialog opens in: where the user saved the last export, else their Downloads folder, else their
 * home. Never the user's project: an export is not part of it (and would show up in its changes and commits).
 */
export function exportFolder(lastUsed: string | undefined, home = os.homedir(), isFolder: (p: string) => boolean = isDirectory): string {
  if (lastUsed && path.isAbsolute(lastUsed) && isFolder(lastUsed)) return lastUsed;
  const downloads = path.join(home, 'Downloads');
  return isFolder(downloads) ? downloads : home;
}

function isDirectory(folder: string): boolean {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/** A Sessions view row (its context menu passes the row's context) or a session. */
type Target = { key?: unknown } | { agentName?: unknown; sessionId?: unknown } | undefined;

/** How long the text view waits after a change before it reads the transcript again (it changes per chunk). */
const REFRESH_MS = 300;

export class TranscriptExport implements vscode.TextDocumentContentProvider, vscode.Disposable {
  ui: ExportUi = vscodeExportUi;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** The open text views, by URI: the chat each follows. */
  private readonly followed = new Map<string, { readonly tab: ChatTab; dispose(): void }>();

  constructor(
    private readonly tabs: ChatTabs,
    /** The session of a Sessions view row, by its key. */
    private readonly sessionOfRow: (key: string) => { agentName: string; sessionId: string } | undefined,
    /** Keeps the folder of the last export (the extension's global state). */
    private readonly memory: vscode.Memento,
  ) {}

  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand(TranscriptCommandIds.exportSession, (target?: Target) => this.export(this.tabFor(target))),
      vscode.commands.registerCommand(TranscriptCommandIds.openTranscript, (target?: Target) => this.openText(this.tabFor(target))),
      vscode.workspace.onDidCloseTextDocument((document) => this.unfollow(document.uri)),
      this,
    ];
  }

  /** The chat's transcript as Markdown, as of now. */
  markdown(tab: ChatTab, date = new Date()): string {
    const { session, entries } = tab.controller.thread.snapshot();
    return transcriptMarkdown(
      {
        title: session.title ?? chatTitle(session),
        agentName: session.agentName,
        sessionId: session.sessionId,
        roots: session.roots,
        date: date.toISOString(),
      },
      entries,
    );
  }

  /** Asks where to, then writes the Markdown there. Resolves with where it went, or undefined when cancelled. */
  async export(tab: ChatTab | undefined): Promise<vscode.Uri | 'clipboard' | undefined> {
    if (!tab) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a chat to export its session, or pick a session open in a chat in the Sessions view.'));
      return undefined;
    }
    const title = tab.controller.thread.session.title ?? chatTitle(tab.controller.thread.session);
    const destination = await this.ui.destination(title);
    if (destination === 'clipboard') {
      await vscode.env.clipboard.writeText(this.markdown(tab));
      void vscode.window.showInformationMessage(vscode.l10n.t('Copied “{0}” to the clipboard as Markdown.', title));
      return 'clipboard';
    }
    if (destination !== 'file') return undefined;
    const folder = vscode.Uri.file(exportFolder(this.memory.get<string>(LAST_FOLDER_KEY)));
    const target = await this.ui.saveTo(vscode.Uri.joinPath(folder, `${fileName(title)}.md`));
    if (!target) return undefined;
    if (target.scheme === 'file') await this.memory.update(LAST_FOLDER_KEY, path.dirname(target.fsPath));
    try {
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(this.markdown(tab)));
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Could not save the session to {0}: {1}', target.fsPath, errorMessage(error)));
      return undefined;
    }
    void vscode.window
      .showInformationMessage(vscode.l10n.t('Saved “{0}” to {1}.', title, vscode.workspace.asRelativePath(target)), vscode.l10n.t('Open'))
      .then((choice) => {
        if (choice === vscode.l10n.t('Open')) void vscode.window.showTextDocument(target);
      });
    return target;
  }

  /** Opens the transcript as a read-only Markdown document that follows the chat. */
  async openText(tab: ChatTab | undefined): Promise<vscode.TextEditor | undefined> {
    if (!tab) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a chat to read its transcript as text.'));
      return undefined;
    }
    const uri = transcriptUri(tab);
    this.follow(uri, tab);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, 'markdown');
    return vscode.window.showTextDocument(document, { preview: false, viewColumn: vscode.ViewColumn.Beside });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    // A view keeps the chat it follows, so its text stays readable once the chat's tab is closed.
    const followed = this.followed.get(uri.toString())?.tab;
    const tab = followed ?? this.tabOfUri(uri);
    if (!tab) return vscode.l10n.t('This chat is not open: reopen its session from the Sessions view, then open its transcript again.\n');
    if (!followed) this.follow(uri, tab); // a view VS Code restored after a reload, its chat restored too
    return this.markdown(tab);
  }

  dispose(): void {
    for (const following of this.followed.values()) following.dispose();
    this.followed.clear();
    this.changed.dispose();
  }

  private follow(uri: vscode.Uri, tab: ChatTab): void {
    const key = uri.toString();
    if (this.followed.has(key)) return;
    let timer: NodeJS.Timeout | undefined;
    const subscription = tab.controller.thread.onDidChange(() => {
      timer ??= setTimeout(() => {
        timer = undefined;
        this.changed.fire(uri);
      }, REFRESH_MS);
    });
    this.followed.set(key, {
      tab,
      dispose: () => {
        clearTimeout(timer);
        subscription.dispose();
      },
    });
  }

  private unfollow(uri: vscode.Uri): void {
    if (uri.scheme !== TRANSCRIPT_SCHEME) return;
    this.followed.get(uri.toString())?.dispose();
    this.followed.delete(uri.toString());
  }

  private tabOfUri(uri: vscode.Uri): ChatTab | undefined {
    const params = new URLSearchParams(uri.query);
    const agentName = params.get('agent');
    const sessionId = params.get('session');
    return agentName && sessionId ? this.tabs.find(agentName, sessionId) : undefined;
  }

  private tabFor(target: Target): ChatTab | undefined {
    if (target && 'key' in target && typeof target.key === 'string') {
      const session = this.sessionOfRow(target.key);
      return session && this.tabs.find(session.agentName, session.sessionId);
    }
    if (target && 'agentName' in target && typeof target.agentName === 'string' && typeof target.sessionId === 'string') {
      return this.tabs.find(target.agentName, target.sessionId);
    }
    return this.tabs.active();
  }
}

/** The text view's URI: the title names the tab; the session is in the query. */
export function transcriptUri(tab: ChatTab): vscode.Uri {
  const session = tab.controller.session;
  const title = tab.controller.thread.session.title ?? chatTitle(tab.controller.thread.session);
  const query = new URLSearchParams({ agent: session.agentName, session: session.sessionId }).toString();
  return vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/${fileName(title)}.md`, query });
}

/** A file name from a title: no path separators or characters Windows refuses, not too long. */
function fileName(title: string): string {
  const name = title
    .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80)
    .replace(/[. ]+$/, '');
  return name || 'session';
}
