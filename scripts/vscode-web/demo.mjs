#!/usr/bin/env node
// @ts-check
// `npm run demo`: a real VS Code (code-server on 127.0.0.1) with ACP Workspace built, packaged and
// installed, a sample multi-root workspace (three small folders) and the offline Reference Agent (in the user
// settings, like a user's own agent: it is no preset) as the default agent, so it works without an API key. Prints the URL to open; Ctrl-C stops everything.
//
//   npm run demo [-- --port 8080]
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageExtension } from '../package.mjs';
import { REFERENCE_AGENT_NAME, installExtension, startCodeServer, workbenchUrl } from './codeServer.mjs';
import { CACHE_DIR, ROOT, ensureCodeServer } from './install.mjs';
import { killAll, onCleanup, sweepMarkedProcesses } from './processes.mjs';

const MARKER = 'ACP_WS_DEMO_RUN';

function portArgument() {
  const index = process.argv.indexOf('--port');
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number(process.env.PORT ?? 0);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Gives the demo's Reference Agent a few past sessions (demo/sessions.json), written in its store format
 * (one JSON file per session, see test/fixtures/referenceAgent/store.ts), so the Sessions view has something
 * to show, open and fork from the start.
 * @param {string} workspaceDir
 * @param {string} storeDir
 */
function seedPastSessions(workspaceDir, storeDir) {
  /** @type {{ sessions: Array<{ title: string, folders: string[], hoursAgo: number, history: Array<[string, string]> }> }} */
  const seeds = JSON.parse(readFileSync(path.join(ROOT, 'demo', 'sessions.json'), 'utf8'));
  mkdirSync(storeDir, { recursive: true });
  seeds.sessions.forEach((seed, i) => {
    const [cwd, ...others] = seed.folders.map((name) => realpathSync(path.join(workspaceDir, name)));
    const at = new Date(Date.now() - seed.hoursAgo * 3_600_000).toISOString();
    const history = seed.history.map(([role, text]) => ({
      sessionUpdate: role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
      content: { type: 'text', text },
    }));
    const sessionId = `ref_demo_${i + 1}`;
    const record = { sessionId, cwd, additionalDirectories: others, title: seed.title, createdAt: at, updatedAt: at, history };
    writeFileSync(path.join(storeDir, `${sessionId}.json`), JSON.stringify(record));
  });
}

async function main() {
  ensureCodeServer();
  console.log('[demo] building and packaging the extension');
  const { vsix } = packageExtension({ check: false });

  // A fresh demo every time: the agent may change files in the sample workspace.
  const scratch = path.join(CACHE_DIR, 'demo');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const workspaceDir = path.join(scratch, 'workspace');
  cpSync(path.join(ROOT, 'demo'), workspaceDir, { recursive: true });
  const server = path.join(scratch, 'server');
  installExtension({ scratch: server, vsix });
  seedPastSessions(workspaceDir, path.join(server, 'user-data', 'User', 'globalStorage', 'acp-workspace.acp-workspace', 'reference-agent'));

  const runId = randomUUID();
  onCleanup(() => {
    const leftovers = sweepMarkedProcesses(MARKER, runId);
    if (leftovers.length > 0) console.log(`[demo] stopped ${leftovers.length} leftover process(es)`);
  });
  const port = portArgument();
  const started = await startCodeServer({
    scratch: server,
    port,
    env: { [MARKER]: runId },
    userSettings: {
      'acpWorkspace.defaultAgent': REFERENCE_AGENT_NAME,
      'git.openRepositoryInParentFolders': 'never',
    },
  });
  onCleanup(() => started.stop());

  const url = workbenchUrl(started.url, { workspace: path.join(workspaceDir, 'demo.code-workspace') });
  console.log('');
  console.log('  ACP Workspace demo is running. Open this URL in a browser:');
  console.log('');
  console.log(`    ${url}`);
  console.log('');
  console.log('  Then click the ACP icon in the activity bar and start a session: New Session, the + in the Agents');
  console.log("  view's title (the default agent is the offline Reference Agent; type /help in the chat), or open a");
  console.log('  past one from the Sessions view.');
  console.log('  Press Ctrl-C to stop everything.');
  await new Promise(() => undefined); // until a signal: processes.mjs stops everything on SIGINT/SIGTERM
}

main().catch(async (error) => {
  console.error(`[demo] ${error instanceof Error ? error.message : String(error)}`);
  await killAll();
  process.exit(1);
});
