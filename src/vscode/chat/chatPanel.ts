/**
 * One chat editor tab. Sends the thread to the webview as a snapshot after `ready`, then, whenever the
 * thread announces a change, as patches paced by the webview's acknowledgements (see {@link TranscriptFeed}):
 * at most one post per animation frame whatever the agent's rate, a long transcript in pieces. Messages
 * from the webview are validated before anything acts on them.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { Logger } from '../../common/logger';
import { chatTitle } from '../../shared/chatModel';
import {
  ChatRequests,
  ChatToHost,
  REOPEN_INTERRUPTED_CHAT_COMMAND,
  withAttachment,
  type Attachment,
  type Draft,
  type HostToChat,
  type QueuedMessage,
  type QueueView,
} from '../../shared/chatProtocol';
import { QUEUE_LIMIT } from '../../sessions/turns/promptQueue';
import type { Thread } from '../../thread/thread';
import { TranscriptFeed } from '../../thread/transcriptFeed';
import { Disposable } from '../../common/lifecycle';
import { webviewHtml, webviewOptions } from '../webviewHtml';
import { CHAT_VIEW_TYPE } from '../contributionIds';
import { chatTabId, chatTabOptions } from './chatTabRecords';
import { errorMessage } from '../../common/errors';

export interface ChatPanelHandlers {
  readonly onMessage: (message: ChatToHost) => void | Promise<void>;
  readonly onDidDispose: () => void;
}

export interface ChatPanelOptions extends ChatPanelHandlers {
  readonly extensionUri: vscode.Uri;
  readonly thread: Thread;
  readonly logger: Logger;
  readonly viewColumn?: vscode.ViewColumn;
  /** A tab VS Code restored after a window reload, to adopt instead of creating one. */
  readonly panel?: vscode.WebviewPanel;
  /** What the user had typed in that tab. */
  readonly draft?: Draft;
  /** The messages that waited in that tab's queue (its chat takes them, held). */
  readonly queue?: readonly QueuedMessage[];
}

export class ChatPanel extends Disposable {
  readonly panel: vscode.WebviewPanel;
  /** The tab's id, kept by VS Code with the tab across a reload (see chatTabRecords.ts). */
  readonly tabId: string;
  private ready = false;
  private readonly feed: TranscriptFeed;
  private draft: Draft = { text: '', attachments: [] };
  private focusWhenReady = false;
  private queue: QueueView | undefined;
  private restoredQueue: readonly QueuedMessage[];
  private handlers: ChatPanelHandlers;
  private tabClosed = false;
  /** Posts so far (the benchmark and tests read it). */
  posts = 0;

  constructor(private readonly options: ChatPanelOptions) {
    super();
    this.handlers = { onMessage: options.onMessage, onDidDispose: options.onDidDispose };
    if (options.draft) this.draft = options.draft;
    this.restoredQueue = options.queue ?? [];
    if (options.queue?.length) this.queue = { items: options.queue.map((item, i) => ({ ...item, id: `restored${i}` })), held: 'restored', limit: QUEUE_LIMIT };
    this.feed = this._register(
      new TranscriptFeed(options.thread, (message) => this.post(message), {
        onLate: () => options.logger.warn('The chat view did not acknowledge a patch in time; sending the next one (and nothing more until it does).'),
      }),
    );
    this.tabId = (options.panel && chatTabId(options.panel)) ?? randomUUID();
    this.panel = this._register(
      options.panel ??
        vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, this.title(), options.viewColumn ?? vscode.ViewColumn.Active, {
          ...chatTabOptions(chatWebviewOptions(options.extensionUri), this.tabId),
          enableFindWidget: true,
        }),
    );
    if (options.panel) {
      this.panel.webview.options = chatTabOptions(chatWebviewOptions(options.extensionUri), this.tabId);
      this.panel.title = this.title();
    }
    this.panel.iconPath = vscode.Uri.joinPath(options.extensionUri, 'media', 'activitybar.svg');
    this.panel.webview.html = webviewHtml(this.panel.webview, options.extensionUri, 'chat', this.title());
    this._register(options.thread.onDidChange(() => this.render()));
    this._register(this.panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    this._register(
      this.panel.onDidChangeViewState(() => {
        // A hidden webview is torn down; it says `ready` again when shown.
        if (!this.panel.visible) {
          this.ready = false;
          this.feed.stop();
        }
      }),
    );
    this._register(
      this.panel.onDidDispose(() => {
        this.tabClosed = true;
        this.handlers.onDidDispose();
        // The tab is gone: VS Code throws "Webview is disposed" at any use of its panel, so nothing here
        // follows the thread any more (its turn may still end, an agent restart may still touch it).
        this.dispose();
      }),
    );
  }

  /** The transcript this tab shows. */
  get thread(): Thread {
    return this.options.thread;
  }

  /** The tab was closed. */
  get isClosed(): boolean {
    return this.tabClosed;
  }

  /** Hands the tab to its session (a restored tab reopens its session before it becomes a chat). */
  setHandlers(handlers: ChatPanelHandlers): void {
    this.handlers = handlers;
  }

  get visible(): boolean {
    return !this.tabClosed && this.panel.visible;
  }

  get active(): boolean {
    return !this.tabClosed && this.panel.active;
  }

  reveal(): void {
    if (!this.tabClosed) this.panel.reveal(undefined, false);
  }

  post(message: HostToChat): void {
    if (this.tabClosed) return;
    this.posts++;
    void this.panel.webview.postMessage(message);
  }

  /** What the user typed and attached and did not send (kept across the webview being hidden). */
  get currentDraft(): Draft {
    return this.draft;
  }

  /**
   * Adds a context chip. The host keeps it in the draft too: a hidden webview is torn down and would
   * lose a message posted to it, so the snapshot it gets when shown again carries the chip.
   */
  addAttachment(attachment: Attachment): void {
    this.draft = { ...this.draft, attachments: withAttachment(this.draft.attachments, attachment) };
    if (this.ready) this.post({ type: 'addAttachment', attachment });
  }

  /** The messages a restored tab had queued, for its chat to take (once). */
  takeRestoredQueue(): QueuedMessage[] {
    const items = this.restoredQueue;
    this.restoredQueue = [];
    return items.map(({ text, attachments }) => ({ text, attachments }));
  }

  /** The chat's queue changed: shown now, and in every snapshot (the host keeps it while the view is hidden). */
  showQueue(queue: QueueView): void {
    this.queue = queue;
    if (this.ready) this.post({ type: 'queue', queue });
  }

  /** Moves the keyboard focus to the prompt box, now or once the webview is up. */
  focusInput(): void {
    if (this.ready) this.post({ type: 'focusInput' });
    else this.focusWhenReady = true;
  }

  override dispose(): void {
    // Closing the tab from code runs the same clean-up as the user closing it (onDidDispose); the base
    // class would remove that listener before disposing the panel.
    if (!this.tabClosed) this.panel.dispose();
    super.dispose();
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = ChatToHost.safeParse(raw);
    if (!parsed.success) {
      this.options.logger.warn(`Ignored an invalid message from the chat view: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'ready': {
        this.ready = true;
        // The snapshot contains every pending change (a long transcript continues in pieces).
        this.feed.start({ draft: this.draft, queue: this.queue });
        if (this.focusWhenReady) {
          this.focusWhenReady = false;
          this.post({ type: 'focusInput', deferred: true });
        }
        await this.handlers.onMessage(message);
        return;
      }
      case 'rendered':
        this.feed.acknowledge(message.seq);
        return;
      case 'request':
        // Answered here, whoever handles the tab (a restored tab answers before its session is back).
        if (message.method === ChatRequests.ping.method) {
          this.post({ type: 'response', id: message.id, result: {} });
          return;
        }
        return this.dispatch(message);
      case 'draft':
        this.draft = message.draft;
        return;
      case 'action':
      case 'attachSelection':
      case 'cancel':
      case 'changes':
      case 'copy':
      case 'editPrompt':
      case 'openChange':
      case 'openDiff':
      case 'openLink':
      case 'openLocation':
      case 'permission':
      case 'prompt':
      case 'queue':
      case 'retry':
      case 'setConfig':
      case 'setMode':
      case 'setModel':
      case 'showTerminal':
        return this.dispatch(message);
    }
  }

  private async dispatch(message: ChatToHost): Promise<void> {
    try {
      await this.handlers.onMessage(message);
    } catch (error) {
      const text = errorMessage(error);
      this.options.logger.error(`Chat action ${message.type} failed: ${text}`);
      void vscode.window.showErrorMessage(text);
    }
  }

  /** The thread changed: post a patch now if none is in flight, else when the webview catches up. */
  private render(): void {
    if (this.tabClosed) return;
    this.panel.title = this.title();
    this.feed.changed();
  }

  private title(): string {
    return chatTitle(this.options.thread.session);
  }
}

/**
 * A chat webview's options: its files, scripts, and the one command its Reopen link may run once the extension
 * host that made it is gone (see {@link REOPEN_INTERRUPTED_CHAT_COMMAND}).
 */
export function chatWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { ...webviewOptions(extensionUri), enableCommandUris: [REOPEN_INTERRUPTED_CHAT_COMMAND] };
}
