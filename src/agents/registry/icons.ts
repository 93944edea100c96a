/**
 * Agents' icons for the gallery: fetched once (through the same bounded fetch as the registry), kept on disk by a
 * hash of the URL, handed out as `data:` URIs so the webview loads nothing remote. Only SVG and PNG are accepted;
 * an SVG shown through `<img>` never runs its scripts. An icon that cannot be had is `undefined`, and is not
 * asked for again in this session.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeAtomically } from '../../common/atomicWrite';
import { silentLogger, type Logger } from '../../common/logger';
import { fetchBounded } from './httpGet';
import { Limiter } from './limiter';
import { errorMessage } from '../../common/errors';

/** An icon larger than this is not shown (the registry asks for 16×16 SVGs of a few hundred bytes). */
export const MAX_ICON_BYTES = 256 * 1024;
/** At most this many icons are fetched at once. */
export const MAX_ICON_FETCHES = 4;
/** A cached icon older than this is fetched again (and still used when that fails). */
export const ICON_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
const ICON_TIMEOUT_MS = 15_000;

type IconType = 'svg' | 'png';
const MIME: Record<IconType, string> = { svg: 'image/svg+xml', png: 'image/png' };
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface IconCacheOptions {
  /** Where icons are kept (under the extension's global storage); created when first written. */
  readonly dir: string;
  readonly fetch?: typeof fetch;
  readonly logger?: Logger;
  /** The clock (tests). */
  readonly now?: () => number;
}

/** Icons by URL, as `data:` URIs. */
export class IconCache {
  private readonly known = new Map<string, Promise<string | undefined>>();
  private readonly limiter = new Limiter(MAX_ICON_FETCHES);
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(private readonly options: IconCacheOptions) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
  }

  /**
   * The icon at `url` as a `data:image/svg+xml;base64,…` or `data:image/png;base64,…` URI; `undefined` when it
   * cannot be had (offline, refused URL, not found, too big, not an SVG or PNG). Never rejects; one answer per
   * URL per session (a failure is not retried until the extension restarts).
   */
  dataUri(url: string): Promise<string | undefined> {
    let answer = this.known.get(url);
    if (!answer) {
      answer = this.load(url).catch((error: unknown) => {
        this.logger.warn(`ACP Registry icon ${url}: ${errorMessage(error)}`);
        return undefined;
      });
      this.known.set(url, answer);
    }
    return answer;
  }

  /** Fetches running or waiting for a slot (tests: the limit is observable without timing). */
  get fetchesInProgress(): { readonly running: number; readonly queued: number } {
    return { running: this.limiter.running, queued: this.limiter.queued };
  }

  private async load(url: string): Promise<string | undefined> {
    // The data: URI itself is kept, so a cached icon needs no second look at its bytes.
    const file = path.join(this.options.dir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.uri`);
    const cached = await this.readCached(file);
    if (cached && this.now() - cached.mtimeMs < ICON_MAX_AGE_MS) return cached.uri;
    try {
      const uri = await this.limiter.run(() => this.fetchIcon(url));
      if (!uri) return cached?.uri;
      await fs.promises.mkdir(this.options.dir, { recursive: true });
      await writeAtomically(file, uri);
      return uri;
    } catch (error) {
      if (cached) return cached.uri;
      throw error;
    }
  }

  private async fetchIcon(url: string): Promise<string | undefined> {
    const answer = await fetchBounded(url, {
      maxBytes: MAX_ICON_BYTES,
      timeoutMs: ICON_TIMEOUT_MS,
      fetch: this.options.fetch,
      headers: { Accept: 'image/svg+xml, image/png' },
    });
    if (answer.status !== 200) {
      this.logger.warn(`ACP Registry icon ${url}: answered ${answer.status}`);
      return undefined;
    }
    const type = typeOf(answer.body, answer.headers.get('content-type'));
    if (!type) {
      this.logger.warn(`ACP Registry icon ${url}: neither an SVG nor a PNG image`);
      return undefined;
    }
    return `data:${MIME[type]};base64,${answer.body.toString('base64')}`;
  }

  private async readCached(file: string): Promise<{ uri: string; mtimeMs: number } | undefined> {
    try {
      const stat = await fs.promises.stat(file);
      if (stat.size > MAX_ICON_BYTES * 2) return undefined;
      const uri = await fs.promises.readFile(file, 'utf8');
      return /^data:image\/(svg\+xml|png);base64,[A-Za-z0-9+/]+=*$/.test(uri) ? { uri, mtimeMs: stat.mtimeMs } : undefined;
    } catch {
      return undefined;
    }
  }
}

/** What the bytes are: PNG by its signature; SVG by content type or by an `<svg` element near the start. */
export function typeOf(body: Buffer, contentType: string | null = null): IconType | undefined {
  if (body.length >= PNG_SIGNATURE.length && body.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) return 'png';
  const head = body.subarray(0, 4096).toString('utf8');
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mime === 'image/svg+xml' && head.includes('<svg')) return 'svg';
  // Before the root element, an SVG may only have a BOM, an XML declaration, comments, a doctype and whitespace.
  const prolog = /^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i;
  return prolog.test(head) ? 'svg' : undefined;
}
