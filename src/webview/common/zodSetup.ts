/**
 * Must be the first import of every webview entry: zod's JIT compiles parsers with `new Function`,
 * which the webview's Content Security Policy forbids (and would report as a violation).
 */
import { config } from 'zod/mini';

config({ jitless: true });
