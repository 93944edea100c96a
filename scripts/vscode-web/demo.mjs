#!/usr/bin/env node
// @ts-check
// `npm run demo`: a real VS Code (code-server on 127.0.0.1) with ACP Workspace built, packaged and
// installed, a sample multi-root workspace (three small folders) and the offline Reference Agent as the
// default agent, so it works without an API key. Prints the URL to open; Ctrl-C stops everything.
//
//   npm run demo [-- --port 8080]
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { packageExtension } from '../package.mjs';
import { installExtension, startCodeServer, workbenchUrl } from './codeServer.mjs';
import { CACHE_DIR, ROOT, ensureCodeServer } from './install.mjs';
import { killAll, onCleanup, sweepMarkedProcesses } from './processes.mjs';

const MARKER = 'ACP_WS_DEMO_RUN';

function portArgument() {
  const index = process.argv.indexOf('--port');
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number(process.env.PORT ?? 0);
  return Number.isInteger(value) && value > 0 ? value : undefined;
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
      'acpWorkspace.defaultAgent': 'Reference Agent (offline)',
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
  console.log('  Then click the ACP icon in the activity bar. The default agent is the offline Reference Agent.');
  console.log('  Press Ctrl-C to stop everything.');
  await new Promise(() => undefined); // until a signal: processes.mjs stops everything on SIGINT/SIGTERM
}

main().catch(async (error) => {
  console.error(`[demo] ${error instanceof Error ? error.message : String(error)}`);
  await killAll();
  process.exit(1);
});
