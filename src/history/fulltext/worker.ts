/**
 * The transcript index worker's entry point (bundled as `dist/transcript-worker.js`, started by
 * TranscriptIndexClient in a `worker_threads` Worker): validates its start options and hands every message to
 * an {@link IndexWorker}. Nothing here runs on the extension host's thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { IndexWorker } from './indexWorker';
import { FromWorker, WorkerOptions } from './workerProtocol';

const port = parentPort;
if (!port) throw new Error('The transcript index runs in a worker thread.');
const options = WorkerOptions.parse(workerData);
const worker = new IndexWorker(options, (message) => port.postMessage(FromWorker.parse(message)));
port.on('message', (message: unknown) => worker.receive(message));
port.on('close', () => worker.close());
