/**
 * The transcript index worker's entry point (bundled as `dist/transcript-worker.js`, started by
 * TranscriptIndexClient in a `worker_threads` Worker). Nothing here runs on the extension host's thread.
 */
import * as l10n from '@vscode/l10n';
import { parentPort, workerData } from 'node:worker_threads';
import { serveIndex } from './indexWorker';

if (!parentPort) throw new Error(l10n.t('The transcript index runs in a worker thread.'));
serveIndex(parentPort, workerData);
