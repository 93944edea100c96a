/** What a click or keystroke in a chat does: prompts, permissions, modes, files, diffs, terminals, recovery. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../common/logger';
import { linkTarget, openChatTarget, type LinkOpener, type LinkTarget } from '../../sessions/turns/chatLinks';
import type { ChatUi } from '../../sessions/ports';
import { RemoteImageCache } from '../../sessions/turns/remoteImage';
import type { AgentLifecycle } from '../../sessions/opening/agentLifecycle';
import { mentionGlob } from '../../sessions/turns/promptBuilder';
import type { PromptEdits } from '../../sessions/opening/promptEdits';
import type { SessionController } from '../../sessions/turns/sessionController';
import type { SessionRouter } from '../../sessions/routing/sessionRouter';
import type { SessionStarter } from '../../sessions/opening/sessionStarter';
import { ChatRequests, type ChatAction, type ChatToHost, type MentionItem } from '../../shared/chatProtocol';
import { answer } from '../../shared/ipc';
import { RemoteCommandIds } from '../remoteCommands';
import { SECTION } from '../settings';
import type { SignIn } from '../signIn';
import type { ChatPanel } from './chatPanel';
import { DiffDocuments } from './diffDocuments';
import { showAgentTerminal } from './terminalView';
import { errorMessage } from '../../common/errors';

/** An open chat and its tab. */
export interface ChatTab {
  readonly controller: SessionController;
  readonly panel: ChatPanel;
}

const MENTION_LIMIT = 40;
const MENTION_EXCLUDE = '**/{node_modules,.git,out,dist,.cache}/**';

export interface ChatActionsOptions {
  /** Restarts the agent (every chat of it reopened) and reopens a chat. */
  readonly lifecycle: Pick<AgentLifecycle, 'restartAgent' | 'reopener'>;
  readonly starter: SessionStarter;
  readonly router: SessionRouter;
  readonly signIn: SignIn;
  /** The questions before a chat opens what the agent linked to (integration tests answer them). */
  readonly ui: () => ChatUi;
  readonly log: vscode.LogOutputChannel;
  readonly logger: Logger;
  /** What a turn's `changes` entry does: open a file's diff, review, undo, redo. */
  readonly changes: ChatChangeActions;
  /** Edit an earlier prompt, retry the last one. */
  readonly edits: PromptEdits;
}

export interface ChatChangeActions {
  openChange(controller: SessionController, entryId: string, index: number): Promise<void>;
  act(controller: SessionController, entryId: string, action: 'review' | 'undo' | 'redo'): Promise<void>;
}

export class ChatActions {
  /** The tool-call diffs it opened (the activation bundle serves them under DIFF_SCHEME). */
  readonly diffs = new DiffDocuments();
  /** Each chat's remote images, fetched once (its webview asks again each time it is recreated). */
  private readonly images = new WeakMap<SessionController, RemoteImageCache>();

  constructor(private readonly options: ChatActionsOptions) {}

  async handle(tab: ChatTab, message: ChatToHost): Promise<void> {
    const { controller } = tab;
    switch (message.type) {
      case 'prompt':
        return controller.submit(message.text, message.attachments, message.now);
      case 'queue':
        return controller.queueAction(message.queue);
      case 'cancel':
        return controller.cancel();
      case 'editPrompt':
        await this.options.edits.edit(controller, message.entryId, message.text);
        return;
      case 'retry':
        return this.retry(controller, message.undoFirst);
      case 'permission':
        return controller.choosePermission(message.entryId, message.optionId);
      case 'setMode':
        return controller.setMode(message.modeId);
      case 'setModel':
        return controller.setModel(message.modelId);
      case 'setConfig':
        return controller.setConfigOption(message.configId, message.value);
      case 'openLocation':
        return this.open(controller, { kind: 'file', path: path.resolve(controller.session.rootSet.cwd.path, message.path), line: message.line });
      case 'openDiff': {
        const entry = controller.thread.entry(message.entryId);
        const content = entry?.kind === 'tool' ? entry.content[message.index] : undefined;
        if (content?.type === 'diff')
          await this.diffs.open(
            content.path,
            content.oldText,
            content.newText,
            `${path.basename(content.path)} (${entry?.kind === 'tool' ? entry.title : 'diff'})`,
          );
        return;
      }
      case 'openChange':
        return this.options.changes.openChange(controller, message.entryId, message.index);
      case 'changes':
        return this.options.changes.act(controller, message.entryId, message.action);
      case 'showTerminal': {
        const terminals = this.options.router.terminals(controller.session.connection);
        if (!terminals || !showAgentTerminal(terminals, message.terminalId, controller.session.agentName)) {
          void vscode.window.showInformationMessage(vscode.l10n.t('That terminal was released by the agent; its output is in the chat.'));
        }
        return;
      }
      case 'request':
        tab.panel.post(
          await answer(
            ChatRequests,
            {
              mentions: ({ query }) => this.mentions(controller, query),
              ping: () => Promise.resolve({}),
              loadImage: ({ url }) => this.loadImage(controller, url),
            },
            message,
          ),
        );
        return;
      case 'attachSelection':
        return attachSelection(tab);
      case 'copy':
        await vscode.env.clipboard.writeText(message.text);
        return;
      case 'openLink':
        return this.open(controller, linkTarget(message.href, controller.session.rootSet.cwd.path));
      case 'action':
        return this.action(tab, message.action, message.methodId);
      case 'ready':
        // A recreated view edits nothing: a message it was editing may go.
        controller.queue.stopEditing();
        return;
      case 'rendered':
      case 'draft':
        return; // handled by the panel
    }
  }

  /** Opens what a link or location points to; a file outside the session's folders only once the user agrees. */
  private async open(controller: SessionController, target: LinkTarget): Promise<void> {
    const opener: LinkOpener = {
      openFile,
      openExternal: async (uri) => void (await vscode.env.openExternal(vscode.Uri.parse(uri))),
      confirmOutside: (question) => this.options.ui().confirmOpenOutside(question),
    };
    const outcome = await openChatTarget(controller.session, target, opener);
    if (outcome === 'declined' && target.kind === 'file')
      this.options.logger.info(`Did not open ${target.path}: it is outside the session's folders and the user declined.`);
  }

  private async action(tab: ChatTab, action: ChatAction, methodId: string | undefined): Promise<void> {
    const { controller } = tab;
    switch (action) {
      case 'restart':
        // Every chat of the agent is reopened; a failure is said in each of them.
        await this.options.lifecycle.restartAgent(controller.session.agentName).catch(() => undefined);
        return;
      case 'reopen':
        await this.options.lifecycle.reopener.recover(controller);
        return;
      case 'signIn':
        await this.options.signIn.run(controller.session.agentName, methodId);
        return;
      case 'setToken':
        // Once saved, the agent connects again with it and this chat is reopened (see Set Remote Agent Token…).
        await vscode.commands.executeCommand(RemoteCommandIds.setRemoteAgentToken, controller.session.agentName);
        return;
      case 'showLog':
        this.options.log.show(true);
        return;
      case 'reopenWithCurrentFolders':
        await this.options.starter.reopenWithCurrentFolders(controller.session);
        return;
      case 'messageSizeSetting':
        await vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.maxMessageSizeMiB`);
        return;
      case 'openSettings':
        await vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.agents`);
        return;
    }
  }

  /** Retry, after undoing the last turn's file changes when the user asked (the undo asks its confirmation). */
  private async retry(controller: SessionController, undoFirst: boolean): Promise<void> {
    if (undoFirst) {
      const changes = lastTurnChanges(controller);
      if (changes) {
        await this.options.changes.act(controller, changes, 'undo');
        const after = controller.thread.entry(changes);
        // The confirmation was declined, or the undo could not be done (the chat says why): no retry.
        if (after?.kind !== 'changes' || after.state !== 'undone') return;
      }
    }
    await this.options.edits.retry(controller);
  }

  /** A remote image the user clicked in agent text (the webview loads nothing from the network itself). */
  private async loadImage(controller: SessionController, url: string): Promise<{ dataUrl: string }> {
    let cache = this.images.get(controller);
    if (!cache) this.images.set(controller, (cache = new RemoteImageCache()));
    try {
      const { dataUrl, bytes, cached } = await cache.get(url);
      if (!cached) this.options.logger.info(`Loaded an image the user asked for: ${url} (${bytes} bytes).`);
      return { dataUrl };
    } catch (error) {
      this.options.logger.warn(`Could not load the image ${url}: ${errorMessage(error)}`);
      throw error;
    }
  }

  /** Files under the session's roots whose path contains the query (case-insensitive), roots in order. */
  private async mentions(chat: SessionController, query: string): Promise<MentionItem[]> {
    const roots = [chat.session.rootSet.cwd, ...chat.session.rootSet.additionalDirectories];
    const needle = query.toLowerCase();
    const items: MentionItem[] = [];
    for (const root of roots) {
      if (items.length >= MENTION_LIMIT) break;
      const pattern = mentionGlob(needle);
      let found: vscode.Uri[] = [];
      try {
        found = await vscode.workspace.findFiles(new vscode.RelativePattern(vscode.Uri.file(root.path), pattern), MENTION_EXCLUDE, MENTION_LIMIT * 2);
      } catch (error) {
        this.options.logger.warn(`Mention search in ${root.path}: ${String(error)}`);
      }
      const matches = found
        .map((uri) => uri.fsPath)
        .filter((file) => path.relative(root.path, file).toLowerCase().includes(needle))
        .sort((a, b) => a.length - b.length || a.localeCompare(b));
      for (const file of matches) {
        if (items.length >= MENTION_LIMIT) break;
        const relative = path.relative(root.path, file).split(path.sep).join('/');
        items.push({ path: file, label: roots.length > 1 ? `${root.name}/${relative}` : relative, root: root.name });
      }
    }
    return items;
  }
}

/** The `changes` entry of the chat's last turn, if that turn changed files that are not undone. */
function lastTurnChanges(controller: SessionController): string | undefined {
  const { entries } = controller.thread.snapshot();
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.kind === 'user') return undefined;
    if (entry.kind === 'changes') return entry.state === 'done' && entry.files.length > 0 ? entry.id : undefined;
  }
  return undefined;
}

/** Adds the active editor's selection (or its whole file) as context to a chat. */
export function attachSelection(tab: ChatTab): void {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.uri.scheme !== 'file') {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a file and select some lines to add them to the chat.'));
    return;
  }
  const { document, selection } = editor;
  const file = document.uri.fsPath;
  const root = vscode.workspace.getWorkspaceFolder(document.uri);
  const relative = root ? path.relative(root.uri.fsPath, file) : path.basename(file);
  if (selection.isEmpty) {
    tab.panel.addAttachment({ kind: 'file', path: file, label: relative });
  } else {
    const startLine = selection.start.line + 1;
    const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line : selection.end.line + 1;
    tab.panel.addAttachment({
      kind: 'selection',
      path: file,
      label: `${relative}:${startLine}-${endLine}`,
      startLine,
      endLine,
      text: document.getText(selection),
    });
  }
  tab.panel.reveal();
  tab.panel.focusInput();
}

async function openFile(file: string, line?: number): Promise<void> {
  if (!fs.existsSync(file)) {
    void vscode.window.showWarningMessage(vscode.l10n.t('{0} does not exist.', file));
    return;
  }
  const position = line !== undefined && line > 0 ? new vscode.Position(line - 1, 0) : undefined;
  await vscode.window.showTextDocument(vscode.Uri.file(file), {
    preview: true,
    selection: position ? new vscode.Range(position, position) : undefined,
  });
}
