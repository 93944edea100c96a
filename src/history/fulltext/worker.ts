/**
 * The transcript index worker's entry point (bundled as `dist/transcript-worker.js`, started by
 * TranscriptIndexClient in a `worker_threads` Worker). Nothing here runs on the extension host's thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serveIndex } from './indexWorker';

if (!parentPort) throw new Error('The transcript index runs in a worker thread.');
serveIndex(parentPort, workerData);
