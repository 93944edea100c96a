/** What a click or keystroke in a chat does: prompts, permissions, modes, files, diffs, terminals, recovery. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as vscode from 'vscode';
import type { Logger } from '../../common/logger';
import type { ChatToHost, MentionItem } from '../../shared/chatProtocol';
import { buildPrompt, mentionGlob } from '../../sessions/promptBuilder';
import { reopenMode, reopenSession } from '../../sessions/sessionLifecycle';
import type { McpServers } from '../mcpServers';
import { vscodeOpenDocuments } from '../openDocuments';
import type { SessionStarter } from '../sessionStarter';
import type { SignIn } from '../signIn';
import type { Chat, ChatSessions } from './chatSessions';
import { showAgentTerminal } from './terminalView';

const MENTION_LIMIT = 40;
const MENTION_EXCLUDE = '**/{node_modules,.git,out,dist,.cache}/**';

export class ChatActions {
  constructor(
    private readonly chats: ChatSessions,
    private readonly starter: SessionStarter,
    private readonly mcp: McpServers,
    private readonly signIn: SignIn,
    private readonly log: vscode.LogOutputChannel,
    private readonly logger: Logger,
  ) {}

  async handle(chat: Chat, message: ChatToHost): Promise<void> {
    const { controller } = chat;
    switch (message.type) {
      case 'prompt':
        return this.prompt(chat, message.text, message.attachments);
      case 'cancel':
        return controller.cancel();
      case 'permission':
        return controller.choosePermission(message.entryId, message.optionId);
      case 'setMode':
        return controller.setMode(message.modeId);
      case 'setConfig':
        return controller.setConfigOption(message.configId, message.value);
      case 'openLocation':
        return openFile(message.path, message.line);
      case 'openDiff': {
        const entry = controller.thread.entry(message.entryId);
        const content = entry?.kind === 'tool' ? entry.content[message.index] : undefined;
        if (content?.type === 'diff') await this.chats.diffs.open(content.path, content.oldText, content.newText, `${path.basename(content.path)} (${entry?.kind === 'tool' ? entry.title : 'diff'})`);
        return;
      }
      case 'showTerminal': {
        const terminals = this.chats.terminalsOf(controller.session.connection);
        if (!terminals || !showAgentTerminal(terminals, message.terminalId, controller.session.agentName)) {
          void vscode.window.showInformationMessage('That terminal was released by the agent; its output is in the chat.');
        }
        return;
      }
      case 'mentionQuery':
        chat.panel.post({ type: 'mentionResults', requestId: message.requestId, items: await this.mentions(chat, message.query) });
        return;
      case 'attachSelection':
        return this.attachSelection(chat);
      case 'copy':
        await vscode.env.clipboard.writeText(message.text);
        return;
      case 'openLink':
        return openLink(message.href);
      case 'action':
        return this.action(chat, message.action, message.methodId);
      case 'ready':
      case 'rendered':
      case 'draft':
        return; // handled by the panel
    }
  }

  /** Adds the active editor's selection (or its whole file) as context to a chat. */
  attachSelection(chat: Chat): void {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== 'file') {
      void vscode.window.showInformationMessage('Open a file and select some lines to add them to the chat.');
      return;
    }
    const { document, selection } = editor;
    const file = document.uri.fsPath;
    const root = vscode.workspace.getWorkspaceFolder(document.uri);
    const relative = root ? path.relative(root.uri.fsPath, file) : path.basename(file);
    if (selection.isEmpty) {
      chat.panel.addAttachment({ kind: 'file', path: file, label: relative });
    } else {
      const startLine = selection.start.line + 1;
      const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line : selection.end.line + 1;
      chat.panel.addAttachment({ kind: 'selection', path: file, label: `${relative}:${startLine}-${endLine}`, startLine, endLine, text: document.getText(selection) });
    }
    chat.panel.reveal();
    chat.panel.focusInput();
  }

  /** Restart the agent and reopen this session in the same chat. */
  async restartAndReopen(chat: Chat): Promise<void> {
    const agentName = chat.controller.session.agentName;
    await this.chats.agents.restart(agentName);
    await this.reopen(chat);
  }

  /**
   * Reopens the session on a running agent with its complete root list: resume (no replay) when the
   * agent supports it, else load (the chat is cleared and the agent replays the history).
   */
  async reopen(chat: Chat): Promise<void> {
    const previous = chat.controller.session;
    const connection = await this.chats.agents.start(previous.agentName);
    const mode = reopenMode(connection);
    if (!mode) {
      chat.controller.thread.addError(`${previous.agentName} cannot reopen sessions (it supports neither session/resume nor session/load). Start a new session.`, []);
      chat.panel.scheduleRender();
      return;
    }
    const { servers, notPassed } = this.mcp.forAgent(previous.agentName, connection.caps);
    this.chats.prepareReopen(chat, connection, mode);
    const session = await reopenSession(connection, previous.sessionId, previous.rootSet, { mode, mcpServers: servers });
    this.chats.reattach(chat, session);
    for (const line of notPassed) chat.controller.thread.addInfo(line);
    chat.controller.thread.addInfo(mode === 'load' ? 'Session reopened: the agent replayed its history.' : 'Session resumed.');
    chat.panel.scheduleRender();
  }

  private async prompt(chat: Chat, text: string, attachments: Parameters<typeof buildPrompt>[1]): Promise<void> {
    const { controller } = chat;
    const session = controller.session;
    const built = await buildPrompt(text, attachments, session.connection.caps.prompt, session.guard, vscodeOpenDocuments);
    for (const line of built.skipped) controller.thread.addInfo(line);
    if (built.blocks.length === 0) {
      chat.panel.scheduleRender();
      return;
    }
    await controller.prompt(built.blocks, built.shown);
  }

  private async action(chat: Chat, action: string, methodId: string | undefined): Promise<void> {
    switch (action) {
      case 'restart':
        return this.restartAndReopen(chat);
      case 'reopen':
        return this.reopen(chat);
      case 'signIn':
        await this.signIn.run(chat.controller.session.agentName, methodId);
        return;
      case 'showLog':
        this.log.show(true);
        return;
      case 'reopenWithCurrentFolders': {
        await this.starter.reopenWithCurrentFolders(chat.controller.session);
        return;
      }
    }
  }

  /** Files under the session's roots whose path contains the query (case-insensitive), roots in order. */
  private async mentions(chat: Chat, query: string): Promise<MentionItem[]> {
    const roots = [chat.controller.session.rootSet.cwd, ...chat.controller.session.rootSet.additionalDirectories];
    const needle = query.toLowerCase();
    const items: MentionItem[] = [];
    for (const root of roots) {
      if (items.length >= MENTION_LIMIT) break;
      const pattern = mentionGlob(needle);
      let found: vscode.Uri[] = [];
      try {
        found = await vscode.workspace.findFiles(new vscode.RelativePattern(vscode.Uri.file(root.path), pattern), MENTION_EXCLUDE, MENTION_LIMIT * 2);
      } catch (error) {
        this.logger.warn(`Mention search in ${root.path}: ${String(error)}`);
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


async function openFile(file: string, line?: number): Promise<void> {
  if (!fs.existsSync(file)) {
    void vscode.window.showWarningMessage(`${file} does not exist.`);
    return;
  }
  const position = line !== undefined && line > 0 ? new vscode.Position(line - 1, 0) : undefined;
  await vscode.window.showTextDocument(vscode.Uri.file(file), {
    preview: true,
    selection: position ? new vscode.Range(position, position) : undefined,
  });
}

async function openLink(href: string): Promise<void> {
  if (/^(https?|mailto):/i.test(href)) {
    await vscode.env.openExternal(vscode.Uri.parse(href));
    return;
  }
  if (/^file:/i.test(href)) {
    const url = new URL(href);
    const line = /^#L(\d+)/.exec(url.hash)?.[1];
    await openFile(fileURLToPath(url), line ? Number(line) : undefined);
    return;
  }
  if (path.isAbsolute(href)) await openFile(href);
}
