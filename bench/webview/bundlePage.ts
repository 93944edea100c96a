/** Bundles a benchmark's page around the chat app as esbuild.mjs bundles the shipped chat webview. */
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/**
 * `entry` (a page under bench/webview/) into `outfile`: minified (unless `minify` is false, for a profile that
 * names functions), the stylesheet left to the shipped `chat.css`, markdown-it's entities decoded by the browser.
 */
export async function bundleChatPage(entry: string, outfile: string, minify = true): Promise<void> {
  await esbuild.build({
    entryPoints: [path.join(REPO_ROOT, 'bench', 'webview', entry)],
    outfile,
    bundle: true,
    minify,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.css': 'empty' },
    alias: { entities: path.join(REPO_ROOT, 'src', 'webview', 'common', 'htmlEntities.ts') },
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
}
