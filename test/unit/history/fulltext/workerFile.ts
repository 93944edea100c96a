/** The transcript index worker as tsc emits it (out/src/history/fulltext/worker.js): the real worker, unbundled. */
import * as path from 'node:path';

export const TRANSCRIPT_WORKER = path.resolve(__dirname, '../../../../src/history/fulltext/worker.js');
