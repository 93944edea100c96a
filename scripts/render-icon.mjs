// @ts-check
// Renders media/icon.svg to media/icon.png (128×128) with headless Chromium, the marketplace needs a PNG.
//   node scripts/render-icon.mjs
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launchBrowser } from './vscode-web/browser.mjs';
import { ROOT } from './vscode-web/install.mjs';

const svg = readFileSync(path.join(ROOT, 'media', 'icon.svg'), 'utf8');
const browser = await launchBrowser({ viewport: { width: 128, height: 128 } });
try {
  const page = await browser.context.newPage();
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: path.join(ROOT, 'media', 'icon.png'), omitBackground: true });
  console.log('media/icon.png written');
} finally {
  await browser.close();
}
