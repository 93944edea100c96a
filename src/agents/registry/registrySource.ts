/**
 * The registry catalog, kept current: fetched from the registry URL with HTTP validators (`ETag`,
 * `Last-Modified`), the last good answer cached on disk (one file, written atomically), the shipped snapshot
 * standing in before the registry was ever reached. A failure never loses what is known: the previous catalog
 * stays, with `error` saying why it could not be refreshed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import * as z from 'zod';
import { writeAtomically } from '../../common/atomicWrite';
import { Emitter, type Event } from '../../common/events';
import { silentLogger, type Logger } from '../../common/logger';
import { fetchBounded, formatBytes } from './httpGet';
import { parseRegistry } from './schema';
import type { RegistryAgent, RegistryCatalog, RegistrySource } from './types';
import { errorMessage } from '../../common/errors';

/** A registry document larger than this is refused (the official one is about 100 KiB). */
export const MAX_REGISTRY_BYTES = 16 * 1024 * 1024;
/** How long one refresh may take, redirects and body included. */
export const REGISTRY_TIMEOUT_MS = 30_000;
/** The cache file's name in `cacheDir`. */
export const CACHE_FILE = 'registry-cache.json';

/** The cache file: the registry's answer as received, and what is needed to ask again conditionally. */
const CacheFile = z.object({
  format: z.literal(1),
  url: z.string(),
  etag: z.string().optional(),
  lastModified: z.string().optional(),
  fetchedAt: z.number(),
  body: z.string(),
});
type CacheFile = z.output<typeof CacheFile>;

export interface HttpRegistrySourceOptions {
  /** The registry URL now (the setting; read on every refresh, so a change applies at the next one). */
  readonly url: () => string;
  /** Where the cache file lives (the extension's global storage); created when first written. */
  readonly cacheDir: string;
  /** The shipped registry document (`JSON.parse`d), read only when first needed. */
  readonly snapshot: () => Promise<unknown> | unknown;
  readonly fetch?: typeof fetch;
  /** The clock (tests). */
  readonly now?: () => number;
  readonly logger?: Logger;
  /** Tests shorten it; {@link REGISTRY_TIMEOUT_MS} otherwise. */
  readonly timeoutMs?: number;
}

/** What the last good answer was, for conditional requests and 304s. */
interface Validated {
  readonly cache: CacheFile;
  readonly agents: readonly RegistryAgent[];
  readonly problems: readonly string[];
}

/**
 * {@link RegistrySource} over HTTP(S). `current()` is the cache or the snapshot once {@link ready} resolves (an
 * empty catalog before); `refresh()` asks the registry and never rejects. Concurrent refreshes share one request.
 */
export class HttpRegistrySource implements RegistrySource {
  private readonly changed = new Emitter<RegistryCatalog>();
  readonly onDidChange: Event<RegistryCatalog> = this.changed.event;
  private catalog: RegistryCatalog;
  private validated: Validated | undefined;
  private readonly loaded: Promise<RegistryCatalog>;
  private inFlight: Promise<RegistryCatalog> | undefined;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly cacheFile: string;

  constructor(private readonly options: HttpRegistrySourceOptions) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.cacheFile = path.join(options.cacheDir, CACHE_FILE);
    this.catalog = { url: options.url(), agents: [], problems: [], source: 'snapshot' };
    this.loaded = this.loadOffline(options.url());
  }

  /** Resolves once the cache (or, without a usable one, the snapshot) has been read: the first `current()` worth showing. */
  ready(): Promise<RegistryCatalog> {
    return this.loaded;
  }

  current(): RegistryCatalog {
    return this.catalog;
  }

  refresh(signal?: AbortSignal): Promise<RegistryCatalog> {
    this.inFlight ??= this.fetchNow(signal).finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  dispose(): void {
    this.changed.dispose();
  }

  private async fetchNow(signal: AbortSignal | undefined): Promise<RegistryCatalog> {
    await this.loaded;
    const url = this.options.url();
    // The setting changed since: what stands in for the new registry is its cache, or the snapshot, never another's.
    if (url !== this.catalog.url) await this.loadOffline(url);
    const previous = this.catalog;
    const cached = this.validated?.cache.url === url ? this.validated : undefined;
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (cached?.cache.etag) headers['If-None-Match'] = cached.cache.etag;
    if (cached?.cache.lastModified) headers['If-Modified-Since'] = cached.cache.lastModified;
    try {
      const answer = await fetchBounded(url, {
        maxBytes: MAX_REGISTRY_BYTES,
        signal,
        headers,
        timeoutMs: this.options.timeoutMs ?? REGISTRY_TIMEOUT_MS,
        fetch: this.options.fetch,
      });
      const fetchedAt = this.now();
      if (answer.status === 304 && cached) {
        this.validated = { ...cached, cache: { ...cached.cache, fetchedAt } };
        await this.writeCache(this.validated.cache);
        return this.set({ url, agents: cached.agents, problems: cached.problems, source: 'network', fetchedAt });
      }
      if (answer.status !== 200) throw new Error(httpFailure(url, answer.status));
      const body = answer.body.toString('utf8');
      const { agents, problems } = parseRegistry(parseJson(body, url), url);
      const cache: CacheFile = {
        format: 1,
        url,
        ...optional('etag', answer.headers.get('etag')),
        ...optional('lastModified', answer.headers.get('last-modified')),
        fetchedAt,
        body,
      };
      this.validated = { cache, agents, problems };
      await this.writeCache(cache);
      for (const problem of problems) this.logger.warn(`ACP Registry ${url}: ${problem}`);
      return this.set({ url, agents, problems, source: 'network', fetchedAt });
    } catch (error) {
      const message = errorMessage(error);
      this.logger.warn(`ACP Registry ${url}: ${message}`);
      return this.set({ ...previous, error: message });
    }
  }

  /** The catalog for `url` without the network: its cache when there is one, else the snapshot. */
  private async loadOffline(url: string): Promise<RegistryCatalog> {
    const cache = await this.readCache();
    if (cache && cache.url === url) {
      try {
        const { agents, problems } = parseRegistry(JSON.parse(cache.body), url);
        this.validated = { cache, agents, problems };
        return this.set({ url, agents, problems, source: 'cache', fetchedAt: cache.fetchedAt });
      } catch (error) {
        this.logger.warn(`ACP Registry: the cached copy of ${url} is unusable (${String(error)}); using the shipped snapshot.`);
      }
    }
    this.validated = undefined;
    try {
      const { agents, problems } = parseRegistry(await this.options.snapshot(), url);
      return this.set({ url, agents, problems, source: 'snapshot' });
    } catch (error) {
      const message = errorMessage(error);
      this.logger.error(`ACP Registry: the shipped snapshot could not be read: ${message}`);
      return this.set({ url, agents: [], problems: [], source: 'snapshot', error: message });
    }
  }

  private async readCache(): Promise<CacheFile | undefined> {
    try {
      const stat = await fs.promises.stat(this.cacheFile);
      // The body is bounded when written; anything much larger was not written by us.
      if (stat.size > MAX_REGISTRY_BYTES * 2) {
        this.logger.warn(`ACP Registry: ${this.cacheFile} is ${formatBytes(stat.size)}, too large to be a cache; ignored.`);
        return undefined;
      }
      const parsed = CacheFile.safeParse(JSON.parse(await fs.promises.readFile(this.cacheFile, 'utf8')));
      if (parsed.success) return parsed.data;
      this.logger.warn(`ACP Registry: ${this.cacheFile} is not a cache this version reads; ignored.`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.logger.warn(`ACP Registry: ${this.cacheFile} could not be read: ${String(error)}`);
    }
    return undefined;
  }

  /** A cache that cannot be written costs a full download next time, nothing more. */
  private async writeCache(cache: CacheFile): Promise<void> {
    try {
      await fs.promises.mkdir(this.options.cacheDir, { recursive: true });
      await writeAtomically(this.cacheFile, JSON.stringify(cache));
    } catch (error) {
      this.logger.warn(`ACP Registry: could not write ${this.cacheFile}: ${String(error)}`);
    }
  }

  private set(next: RegistryCatalog): RegistryCatalog {
    const before = this.catalog;
    this.catalog = next;
    const same =
      before.url === next.url &&
      before.source === next.source &&
      before.error === next.error &&
      before.agents === next.agents &&
      before.problems === next.problems;
    if (!same) this.changed.fire(next);
    return next;
  }
}

function parseJson(body: string, url: string): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new Error(l10n.t('{0} did not send JSON: {1}', url, errorMessage(error)));
  }
}

function optional<K extends string>(key: K, value: string | null): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}

/** Why a registry answer other than 200/304 is of no use, in words. */
function httpFailure(url: string, status: number): string {
  switch (status) {
    case 401:
    case 403:
      return l10n.t('{0} refused access ({1}).', url, status);
    case 404:
      return l10n.t('{0} was not found ({1}).', url, status);
    case 429:
      return l10n.t('{0} answered {1}: too many requests; try again later.', url, status);
    default:
      return status >= 500
        ? l10n.t('{0} answered {1}: a server error; try again later.', url, status)
        : l10n.t('{0} answered {1}, not a registry document.', url, status);
  }
}

/**
 * The shipped snapshot as {@link HttpRegistrySourceOptions.snapshot} wants it: `file` read and parsed when first
 * asked for (never at activation), once.
 */
export function snapshotFromFile(file: string): () => Promise<unknown> {
  let read: Promise<unknown> | undefined;
  return () => (read ??= fs.promises.readFile(file, 'utf8').then((text) => JSON.parse(text) as unknown));
}
