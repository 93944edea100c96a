/**
 * A remote image the user asked to see in a chat, fetched by the host as a `data:` URL: the chat webview
 * loads nothing from the network (its CSP allows only its own files and `data:` images), because a remote
 * image is a tracking channel. Only http(s), only images, at most {@link MAX_IMAGE_BYTES}, no cookies, no
 * referrer, and a time limit.
 */
import * as l10n from '@vscode/l10n';
import { errorMessage } from '../../common/errors';

/** Largest image fetched: 10 MiB. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

export interface FetchImageOptions {
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
}

/** The image at `address` as a `data:` URL. Throws an Error saying why in words otherwise. */
export async function fetchRemoteImage(address: string, options: FetchImageOptions = {}): Promise<{ dataUrl: string; bytes: number }> {
  const maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new Error(l10n.t('{0} is not a web address.', address));
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(l10n.t('Only web images (http, https) can be loaded, not {0} ones.', url.protocol));
  let response: Response;
  try {
    response = await fetch(url, {
      redirect: 'follow',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      headers: { accept: 'image/*' },
      signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error(l10n.t('{0} could not be reached: {1}.', url.host, reason(error)));
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(
      response.statusText
        ? l10n.t('{0} answered {1} {2}.', url.host, response.status, response.statusText)
        : l10n.t('{0} answered {1}.', url.host, response.status),
    );
  }
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!/^image\/[\w.+-]+$/.test(type)) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(type ? l10n.t('{0} sent {1}, not an image.', url.host, type) : l10n.t('{0} sent something without a type, not an image.', url.host));
  }
  const tooLarge =
    maxBytes >= 1024 * 1024 ? l10n.t('The image is larger than {0} MiB.', maxBytes / (1024 * 1024)) : l10n.t('The image is larger than {0} bytes.', maxBytes);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(tooLarge);
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = response.body?.getReader();
  for (;;) {
    let chunk: { done: true; value?: undefined } | { done: false; value: Uint8Array };
    try {
      chunk = reader ? await reader.read() : { done: true, value: undefined };
    } catch (error) {
      throw new Error(l10n.t('{0} stopped sending the image: {1}.', url.host, reason(error)));
    }
    if (chunk.done) break;
    bytes += chunk.value.byteLength;
    if (bytes > maxBytes) {
      await reader?.cancel().catch(() => undefined);
      throw new Error(tooLarge);
    }
    chunks.push(chunk.value);
  }
  return { dataUrl: `data:${type};base64,${Buffer.concat(chunks).toString('base64')}`, bytes };
}

function reason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  if (error instanceof Error && error.name === 'TimeoutError') return l10n.t('it took too long');
  return cause ?? errorMessage(error);
}

export interface RemoteImageCacheLimits {
  /** Most images kept. */
  readonly maxCount: number;
  /** Most characters of `data:` URLs kept, all images together. */
  readonly maxChars: number;
}

/** Per chat: 64 images, 32 MiB of `data:` URLs. */
export const IMAGE_CACHE_LIMITS: RemoteImageCacheLimits = { maxCount: 64, maxChars: 32 * 1024 * 1024 };

type Fetched = { dataUrl: string; bytes: number };

/**
 * The remote images of one chat the user chose to see, fetched once and kept: VS Code recreates a chat's
 * webview each time its tab is shown again, and the webview asks for them again. Bounded (the least recently
 * asked for go first); a failure is not kept (the user may try again); two asks at once share one fetch.
 */
export class RemoteImageCache {
  /** Address → the fetch, least recently asked for first. */
  private readonly images = new Map<string, Promise<Fetched>>();
  private readonly sizes = new Map<string, number>();
  private chars = 0;

  constructor(
    private readonly fetchImage: (address: string) => Promise<Fetched> = fetchRemoteImage,
    private readonly limits: RemoteImageCacheLimits = IMAGE_CACHE_LIMITS,
  ) {}

  /** The image at `address`; `cached`: it was fetched before and not again. */
  async get(address: string): Promise<Fetched & { cached: boolean }> {
    const kept = this.images.get(address);
    if (kept) {
      this.images.delete(address);
      this.images.set(address, kept);
      return { ...(await kept), cached: true };
    }
    const fetching = this.fetchImage(address);
    this.images.set(address, fetching);
    try {
      const image = await fetching;
      if (this.images.get(address) === fetching) this.keep(address, image.dataUrl.length);
      return { ...image, cached: false };
    } catch (error) {
      if (this.images.get(address) === fetching) this.images.delete(address);
      throw error;
    }
  }

  /** How many images are kept. */
  get size(): number {
    return this.sizes.size;
  }

  private keep(address: string, chars: number): void {
    if (chars > this.limits.maxChars) {
      this.images.delete(address);
      return;
    }
    this.sizes.set(address, chars);
    this.chars += chars;
    for (const oldest of this.images.keys()) {
      if (this.sizes.size <= this.limits.maxCount && this.chars <= this.limits.maxChars) break;
      const size = this.sizes.get(oldest);
      // Still fetching: not counted yet, and not dropped.
      if (size === undefined || oldest === address) continue;
      this.images.delete(oldest);
      this.sizes.delete(oldest);
      this.chars -= size;
    }
  }
}
