/** Helpers for tests that run inside the real VS Code extension host. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestApi, TestEntry } from '../../../src/extension';
import type { SessionView } from '../../../src/history/sessionView';
import type { HistoryVerb } from '../../../src/sessions/opening/historyActions';
import type { ChatTab } from '../../../src/vscode/chat/chatActions';
import { CHAT_VIEW_TYPE } from '../../../src/vscode/contributionIds';
import { checkClientMessage } from '../../helpers/conformance';

export const EXTENSION_ID = 'acp-workspace.acp-workspace';

export function extension(): vscode.Extension<TestEntry | undefined> {
  const found = vscode.extensions.getExtension<TestEntry | undefined>(EXTENSION_ID);
  assert.ok(found, `${EXTENSION_ID} is not installed in this VS Code`);
  return found;
}

/** Activates the extension (if it is not yet), loads its core (if it is not yet) and returns its test API. */
export async function activate(): Promise<TestApi> {
  const entry = await extension().activate();
  assert.ok(entry, 'the extension returns its test entry in the Extension Test mode');
  return entry.core();
}

/** Reopens a session of the history as the Sessions view does; resolves with its chat's tab (undefined when cancelled). */
export async function reopenFromHistory(api: TestApi, view: SessionView, verb: HistoryVerb): Promise<ChatTab | undefined> {
  const chat = await api.historyActions.reopen(view, verb);
  return chat && api.chats.tabOf(chat);
}

/** A chat tab as VS Code hands it back after a window reload (its webview kept `state`). */
export function restoreTab(api: TestApi, state: unknown) {
  const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, 'Restored', vscode.ViewColumn.Active, { enableScripts: true });
  const tab = { panel, closed: false, restored: undefined as ReturnType<TestApi['chatRestorer']['restore']> | undefined };
  panel.onDidDispose(() => (tab.closed = true));
  tab.restored = api.chatRestorer.restore(panel, state);
  return tab;
}

/**
 * Notes every file under `dirs` (not inside `.git`) and returns a function that puts them back as they
 * were: changed files rewritten, new files and folders removed. The suites of a tier share one copy of
 * the fixture workspace; a suite that edits it leaves it as it found it for the next.
 */
export function keepFolders(dirs: readonly string[]): () => void {
  const walk = (dir: string, files: Map<string, Buffer>, folders: Set<string>): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        folders.add(full);
        walk(full, files, folders);
      } else if (entry.isFile()) files.set(full, fs.readFileSync(full));
    }
  };
  const files = new Map<string, Buffer>();
  const folders = new Set<string>();
  for (const dir of dirs) walk(dir, files, folders);
  return () => {
    const nowFiles = new Map<string, Buffer>();
    const nowFolders = new Set<string>();
    for (const dir of dirs) walk(dir, nowFiles, nowFolders);
    for (const file of nowFiles.keys()) if (!files.has(file)) fs.rmSync(file, { force: true });
    for (const folder of [...nowFolders].reverse()) if (!folders.has(folder)) fs.rmSync(folder, { recursive: true, force: true });
    for (const folder of folders) fs.mkdirSync(folder, { recursive: true });
    for (const [file, content] of files) if (!nowFiles.get(file)?.equals(content)) fs.writeFileSync(file, content);
  };
}

/** Polls until `predicate` holds. */
/** Polls `predicate`; `what` names what is awaited (a function: said with the state found when it times out). */
export async function waitFor(predicate: () => boolean, what: string | (() => string), timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface RecordingAgent {
  readonly name: string;
  readonly recordFile: string;
  /** The agent's `--store` folder (seed it before the agent starts). */
  readonly storeDir: string;
  /** The JSON-RPC messages the agent received, in order. */
  received(): Array<{ id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown }>;
  dispose(): Promise<void>;
}

/**
 * Adds an agent to `acpWorkspace.agents` (user settings, as a user would) that runs the bundled
 * reference agent with `--record`, so the test can see on the agent's side what the client sent.
 */
export async function addRecordingAgent(name: string, extraArgs: string[] = [], entry: Record<string, unknown> = {}): Promise<RecordingAgent> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-ws-it-'));
  const recordFile = path.join(dir, 'received.jsonl');
  const agents = vscode.workspace.getConfiguration('acpWorkspace');
  const current = (agents.get<unknown[]>('agents') ?? []).filter((a) => (a as { name?: string }).name !== name);
  await agents.update(
    'agents',
    [
      ...current,
      {
        name,
        command: '${node}',
        args: ['${extensionPath}/dist/reference-agent.js', '--record', recordFile, '--store', path.join(dir, 'store'), ...extraArgs],
        // Its record and store (where it keeps its state) stay writable when agents are confined.
        writablePaths: [dir],
        ...entry,
      },
    ],
    vscode.ConfigurationTarget.Global,
  );
  return {
    name,
    recordFile,
    storeDir: path.join(dir, 'store'),
    received: () =>
      fs.existsSync(recordFile)
        ? fs
            .readFileSync(recordFile, 'utf8')
            .split('\n')
            .filter((line) => line.trim() !== '')
            .map((line) => JSON.parse(line) as { id?: unknown; method?: string; params?: Record<string, unknown> })
        : [],
    dispose: async () => {
      const now = (vscode.workspace.getConfiguration('acpWorkspace').get<unknown[]>('agents') ?? []).filter((a) => (a as { name?: string }).name !== name);
      await vscode.workspace.getConfiguration('acpWorkspace').update('agents', now.length > 0 ? now : undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Every message the agent received must validate against the official ACP schema. Requests the agent
 * sent are not recorded, so responses are checked against the schema's root only.
 */
export function assertConforms(messages: ReturnType<RecordingAgent['received']>): void {
  const problems = messages.flatMap((message) => checkClientMessage(message).map((p) => `${JSON.stringify(message).slice(0, 200)} → ${p}`));
  assert.deepEqual(problems, [], 'every message the client sent conforms to the ACP JSON Schema');
}

/** True while a process with this pid exists. */
export { isAlive } from '../../helpers/referenceAgent';

/**
 * Records every use of a webview panel that fails because the panel is disposed ("Webview is disposed"):
 * VS Code throws it from the panel's accessors, and an extension's event listener that throws is only logged
 * to the developer console, so a test watches the panel itself.
 */
export function watchDisposedPanel(panel: vscode.WebviewPanel): string[] {
  const failures: string[] = [];
  const guard = <T>(what: string, run: () => T): T => {
    try {
      return run();
    } catch (error) {
      failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  };
  for (const name of ['title', 'webview', 'iconPath', 'viewColumn', 'active', 'visible', 'reveal'] as const) {
    let owner: object | null = Object.getPrototypeOf(panel) as object | null;
    let descriptor: PropertyDescriptor | undefined;
    while (owner && !(descriptor = Object.getOwnPropertyDescriptor(owner, name))) owner = Object.getPrototypeOf(owner) as object | null;
    if (!descriptor) continue;
    const { get, set, value } = descriptor;
    Object.defineProperty(panel, name, {
      configurable: true,
      ...(typeof value === 'function'
        ? { value: (...args: unknown[]) => guard(name, () => (value as (...a: unknown[]) => unknown).apply(panel, args)) }
        : {
            get: get && (() => guard(name, () => get.call(panel))),
            set: set && ((next: unknown) => guard(name, () => set.call(panel, next))),
          }),
    });
  }
  return failures;
}
