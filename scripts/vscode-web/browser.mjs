// @ts-check
// Debian's Chromium, headless, driven by playwright-core (no browser download).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { findChromium } from './install.mjs';

/** Flags that work as root on a machine with a closed network and no GPU. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * Launches Chromium with a fresh profile. Close it with the returned `close()`.
 * @param {{ viewport?: { width: number, height: number } }} [options]
 */
export async function launchBrowser(options = {}) {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('Chromium was not found (install the Debian package "chromium", or set ACP_CHROMIUM)');
  const profile = mkdtempSync(path.join(tmpdir(), 'acp-ws-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: options.viewport ?? { width: 1400, height: 900 },
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`Chromium (${executablePath}) could not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
