/**
 * ACP Workspace: the composition root. Activation registers what VS Code shows or asks for before anything is
 * used (the two views, every command, the chat tabs it restores after a reload, our documents' schemes, the
 * log) and nothing else. The rest, the core (src/core.ts, its own bundle dist/core.js), is loaded and composed
 * the first time one of those is used (src/vscode/activation/lazyCore.ts): activation stays a few
 * milliseconds, and the user sees the same views, commands and tabs as when everything loaded at once.
 */
import * as vscode from 'vscode';
import type * as CoreModule from './core';
import type { Core, TestApi } from './core';
import { LazyCore } from './vscode/activation/lazyCore';
import { LazyTextDocumentContentProvider, LazyTreeDataProvider, LazyWebviewPanelSerializer, LazyWebviewViewProvider } from './vscode/activation/lazyProviders';
import { AGENT_GALLERY_VIEW_TYPE, AGENTS_VIEW_ID, CHAT_VIEW_TYPE, DOCUMENT_SCHEMES, REVIEW_VIEW_TYPE, SESSIONS_VIEW_ID } from './vscode/contributionIds';
import { createLog } from './vscode/log';

export type { TestApi } from './core';

/** What integration tests get from `activate()` (only in the Extension Test mode; `undefined` for everyone else). */
export interface TestEntry {
  /** True once the core is loaded (activation alone does not load it). */
  readonly coreLoaded: boolean;
  /** The core's test API, loading the core now if it is not yet. */
  core(): TestApi;
}

/** The core bundle, next to this one (dist/core.js); required only when first needed. */
function requireCore(): typeof CoreModule {
  // A require of the separate bundle (esbuild.mjs keeps it external): an import would put the core in this bundle.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./core.js') as typeof CoreModule;
}

let current: LazyCore<Core> | undefined;

export function activate(context: vscode.ExtensionContext): TestEntry | undefined {
  const core = activateWith(context, requireCore);
  if (context.extensionMode !== vscode.ExtensionMode.Test) return undefined;
  return {
    get coreLoaded() {
      return core.loaded;
    },
    core: () => core.get('a test').testApi,
  };
}

/** Activation with the core coming from `load` (the activation benchmark also builds it into one bundle). */
export function activateWith(context: vscode.ExtensionContext, load: () => typeof CoreModule): LazyCore<Core> {
  const { channel, logger } = createLog();
  const commands = (context.extension.packageJSON as { contributes: { commands: Array<{ command: string }> } }).contributes.commands.map((c) => c.command);
  const agentsTree: vscode.TreeView<unknown> = vscode.window.createTreeView(AGENTS_VIEW_ID, {
    treeDataProvider: new LazyTreeDataProvider(() => core.get('the Agents view').agentsView),
    showCollapseAll: false,
  });
  const core = new LazyCore<Core>({ load: () => load().composeCore(context, { channel, logger, agentsTree }), commands, logger });
  current = core;
  context.subscriptions.push(
    channel,
    core,
    agentsTree,
    vscode.window.registerWebviewViewProvider(SESSIONS_VIEW_ID, new LazyWebviewViewProvider(() => core.get('the Sessions view').sessionsView), {
      webviewOptions: { retainContextWhenHidden: false },
    }),
    vscode.window.registerWebviewPanelSerializer(
      CHAT_VIEW_TYPE,
      new LazyWebviewPanelSerializer(() => core.get('a chat tab restored after a reload').chatRestorer),
    ),
    vscode.window.registerWebviewPanelSerializer(
      REVIEW_VIEW_TYPE,
      new LazyWebviewPanelSerializer(() => core.get('a Review Changes tab restored after a reload').reviewPanels),
    ),
    vscode.window.registerWebviewPanelSerializer(
      AGENT_GALLERY_VIEW_TYPE,
      new LazyWebviewPanelSerializer(() => core.get('the Add Agent tab restored after a reload').galleryRestorer),
    ),
    ...DOCUMENT_SCHEMES.flatMap((scheme) => {
      const provider = new LazyTextDocumentContentProvider(() => core.get(`a document of ${scheme}:`).documents[scheme]);
      return [provider, vscode.workspace.registerTextDocumentContentProvider(scheme, provider)];
    }),
  );
  logger.info(`ACP Workspace ${String(context.extension.packageJSON.version)} activated.`);
  return core;
}

/** VS Code waits for this: every agent process tree is gone and the session history is on disk when it settles. */
export async function deactivate(): Promise<void> {
  const core = current;
  current = undefined;
  if (core?.loaded) await core.get('deactivation').deactivate();
}
