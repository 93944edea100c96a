/**
 * Downloading an agent's archive: every URL (the first and each redirect) through the fetch policy, the bytes
 * streamed to a file while their SHA-256 is computed, a size cap counted on the bytes received (a
 * Content-Length may lie), a timeout when no data arrives, the caller's AbortSignal. On any failure the
 * partial file is removed.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as l10n from '@vscode/l10n';
import { fetchFollowingRedirects } from '../httpGet';

/** 1 GiB: no agent archive in the registry comes near it. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024;
/** How long the server may send nothing (headers included) before the download fails. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** A download's whole time is not limited (a slow link may take long): the idle timer ends a stalled one. */
const NO_TOTAL_LIMIT_MS = 24 * 60 * 60 * 1000;

export interface DownloadOptions {
  readonly signal?: AbortSignal;
  /** Bytes received so far and the announced total (Content-Length), after each chunk. */
  readonly onProgress?: (received: number, total: number | undefined) => void;
  readonly maxBytes?: number;
  readonly idleTimeoutMs?: number;
  /** Expected hex SHA-256 of the whole body; a mismatch fails the download and removes the file. */
  readonly sha256?: string;
}

export interface Downloaded {
  readonly file: string;
  readonly bytes: number;
  /** Hex SHA-256 (lower case) of what was written. */
  readonly sha256: string;
  /** The URL the bytes came from (after redirects). */
  readonly url: string;
}

/** Thrown when the caller's signal aborted the download (so callers can tell a cancel from a failure). */
export class DownloadCancelledError extends Error {
  constructor() {
    super(l10n.t('The download was cancelled.'));
    this.name = 'DownloadCancelledError';
  }
}

/**
 * Downloads `url` into `file` (created; it must not exist). Resolves once every byte is on disk and the
 * checksum, when given, matched. Rejects with an Error in words; nothing is left at `file` then.
 */
export async function download(url: string, file: string, options: DownloadOptions = {}): Promise<Downloaded> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES;
  const idle = new IdleTimer(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, options.signal);
  let handle: fs.promises.FileHandle | undefined;
  try {
    idle.restart();
    const followed = await idle.race(
      fetchFollowingRedirects(url, {
        signal: idle.signal,
        // The checksum is of the file as published: no transparent decompression on the way.
        headers: { 'accept-encoding': 'identity' },
        timeoutMs: NO_TOTAL_LIMIT_MS,
      }),
    );
    const { response } = followed;
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(l10n.t('The server answered {0} for {1}.', `${response.status}${response.statusText ? ` (${response.statusText})` : ''}`, followed.url));
    }
    const total = contentLength(response);
    if (total !== undefined && total > maxBytes) throw tooLarge(url, maxBytes);
    if (!response.body) throw new Error(l10n.t('The server sent no content for {0}.', url));
    handle = await fs.promises.open(file, 'wx', 0o600);
    const out = handle;
    const hash = createHash('sha256');
    let received = 0;
    const reader = response.body.getReader();
    try {
      for (;;) {
        idle.restart();
        const { done, value } = await idle.race(reader.read());
        if (done) break;
        received += value.byteLength;
        if (received > maxBytes) throw tooLarge(url, maxBytes);
        hash.update(value);
        await idle.race(out.write(value));
        options.onProgress?.(received, total);
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
    return await finish(handle, hash, received, followed.url);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.promises.rm(file, { force: true }).catch(() => undefined);
    if (options.signal?.aborted) throw new DownloadCancelledError();
    if (idle.expired)
      throw new Error(l10n.t('The server sent nothing for {0} seconds: {1}', Math.round((options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS) / 1000), url));
    throw error instanceof Error ? error : new Error(l10n.t('Could not download {0}: {1}', url, String(error)));
  } finally {
    idle.dispose();
  }

  async function finish(open: fs.promises.FileHandle, hash: ReturnType<typeof createHash>, received: number, from: string): Promise<Downloaded> {
    await open.close();
    handle = undefined;
    const actual = hash.digest('hex');
    const expected = options.sha256?.toLowerCase();
    if (expected !== undefined && expected !== actual) {
      throw new Error(l10n.t('The download of {0} does not match its checksum: the registry gives SHA-256 {1}, the file has {2}.', url, expected, actual));
    }
    return { file, bytes: received, sha256: actual, url: from };
  }
}

function contentLength(response: Response): number | undefined {
  const text = response.headers.get('content-length');
  if (text === null || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

function tooLarge(url: string, maxBytes: number): Error {
  return new Error(l10n.t('{0} is larger than the limit of {1} MB.', url, Math.round(maxBytes / (1024 * 1024))));
}

/** Aborts what it races when nothing happened for `ms`, or when the caller's signal aborts. */
class IdleTimer {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => this.controller.abort(this.outer?.reason);
  expired = false;

  constructor(
    private readonly ms: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    if (outer?.aborted) this.controller.abort(outer.reason);
    outer?.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  restart(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new Error('idle'));
    }, this.ms);
  }

  /** `promise`, or a rejection as soon as the download is aborted (a stalled read never settles by itself). */
  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.controller.signal;
    if (signal.aborted) {
      promise.catch(() => undefined);
      return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onAbort);
  }
}
