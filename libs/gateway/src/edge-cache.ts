import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import fresh from 'fresh';
import { HOP_BY_HOP, mergeVary } from './forwarded-headers';
import type { UpstreamService } from './gateway.env';

/**
 * The gateway's shared cache of public answers (RFC 9111 semantics, steered by the upstream the
 * way a CDN is). An upstream opts an answer in with `Surrogate-Control: max-age=N` (the W3C Edge
 * Architecture header, meant for a reverse proxy, never for the browser) and names what it was
 * built from with `Surrogate-Key` (space-separated tags, as Fastly's purge keys). Both headers are
 * removed before the answer leaves the gateway, so clients and caches in front of it see exactly
 * what they saw before.
 *
 * What is stored: 200 answers to GET requests without credentials (no Authorization, no
 * Set-Cookie in the answer), keyed by service and URL plus the request headers the answer's Vary
 * names. What drops entries: their max-age; any write (a method other than GET, HEAD and OPTIONS)
 * answered below 400 by the same service through this gateway, as its headers arrive; a purge of one
 * of their tags (the bus events the gateway maps to tags). A read whose upstream call began before a
 * drop is not stored, so a read racing a write never keeps the old answer.
 */

/** Request methods that never change anything (RFC 9110 §9.2.1): they do not drop entries. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Headers of a stored answer that belong to one exchange, not to the answer. */
const NOT_STORED = new Set([...HOP_BY_HOP, 'x-request-id', 'date', 'age', 'surrogate-control', 'surrogate-key', 'content-length']);

/** An answer larger than this is passed through without being kept. */
const MAX_ENTRY_BYTES = 1024 * 1024;
/** Longest URL kept as a key. */
const MAX_URL_LENGTH = 2048;

export interface EdgeCacheOptions {
  /** Bytes of stored bodies kept at most (oldest dropped first); 0 disables the cache. */
  maxBytes: number;
  now?: () => number;
}

interface Entry {
  key: string;
  variantKey: string;
  service: UpstreamService;
  status: number;
  headers: Array<[string, string | string[]]>;
  body: Buffer;
  storedAt: number;
  expiresAt: number;
  tags: string[];
  /** Its ETag as the upstream sent it, for If-None-Match. */
  etag?: string;
}

/** The answers stored for one URL: the request headers they vary on, and one entry per combination of their values. */
interface Variants {
  vary: string[];
  byValues: Map<string, Entry>;
}

/** What an answer's `Surrogate-Control` and `Vary` allow: how long to keep it, and which request headers it varies on. */
export interface Storable {
  maxAgeMs: number;
  vary: string[];
  tags: string[];
}

/** Parses `max-age=N` from Surrogate-Control (absent, 0, `no-store` or malformed: not storable). */
export function surrogateMaxAgeMs(value: string | string[] | undefined): number {
  if (value === undefined) return 0;
  const directives = (Array.isArray(value) ? value.join(',') : value).toLowerCase().split(',').map((d) => d.trim());
  if (directives.includes('no-store')) return 0;
  for (const d of directives) {
    const m = /^max-age=(\d{1,9})$/.exec(d);
    if (m) return Number(m[1]) * 1000;
  }
  return 0;
}

function headerText(v: string | string[] | undefined): string {
  return v === undefined ? '' : Array.isArray(v) ? v.join(', ') : v;
}

export class EdgeCache {
  private readonly urls = new Map<string, Variants>();
  /** Every stored entry in insertion order, for dropping the oldest when over the byte bound. */
  private readonly order = new Set<Entry>();
  private readonly byTag = new Map<string, Set<Entry>>();
  /** Entries per service: a write drops its service's entries without visiting the others'. */
  private readonly byService = new Map<UpstreamService, Set<Entry>>();
  private bytes = 0;
  /** Moves on every drop: a read that started before it is not stored. */
  private generationValue = 0;
  private readonly now: () => number;
  readonly enabled: boolean;

  constructor(private readonly o: EdgeCacheOptions) {
    this.now = o.now ?? Date.now;
    this.enabled = o.maxBytes > 0;
  }

  get generation(): number {
    return this.generationValue;
  }

  get size(): number {
    return this.order.size;
  }

  /** Whether a request may be answered from, or fill, the cache. */
  accepts(req: IncomingMessage): boolean {
    if (!this.enabled || req.method !== 'GET') return false;
    const url = req.url;
    return url !== undefined && url.length <= MAX_URL_LENGTH && req.headers.authorization === undefined && req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
  }

  /** Whether the client asked for a fresh answer (`Cache-Control: no-cache` or `Pragma: no-cache`): it is fetched, and may be stored. */
  static bypasses(req: IncomingMessage): boolean {
    const cc = req.headers['cache-control'];
    if (cc !== undefined && /(^|,)\s*(no-cache|no-store|max-age=0)\s*(,|$)/i.test(cc)) return true;
    return req.headers.pragma === 'no-cache';
  }

  /** The fresh entry for this request, if any. */
  lookup(service: UpstreamService, req: IncomingMessage): Entry | undefined {
    const variants = this.urls.get(`${service} ${req.url}`);
    if (!variants) return undefined;
    const entry = variants.byValues.get(variantKeyOf(variants.vary, req.headers));
    if (!entry) return undefined;
    if (this.now() >= entry.expiresAt) {
      this.remove(entry);
      return undefined;
    }
    return entry;
  }

  /**
   * Writes a stored answer (the response's own headers, request id and security headers, are
   * already set); 304 without a body when the request's `If-None-Match` names its ETag (weak
   * comparison, RFC 9110 §13.1.2), as the service itself would answer.
   */
  serve(entry: Entry, req: IncomingMessage, res: ServerResponse): void {
    const age = Math.max(0, Math.floor((this.now() - entry.storedAt) / 1000));
    for (const [name, value] of entry.headers) res.setHeader(name, name === 'vary' ? mergeVary(res.getHeader('vary'), value)! : value);
    res.setHeader('age', String(age));
    if (entry.etag !== undefined && fresh(req.headers, { etag: entry.etag })) {
      res.removeHeader('content-type');
      res.writeHead(304);
      res.end();
      return;
    }
    res.setHeader('content-length', entry.body.length);
    res.writeHead(entry.status);
    res.end(entry.body);
  }

  /** What the answer allows to store, or undefined (not 200, no Surrogate-Control max-age, a cookie, `Vary: *`). */
  storable(status: number, headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Storable | undefined {
    if (!this.enabled || status !== 200 || headers['set-cookie'] !== undefined) return undefined;
    const maxAgeMs = surrogateMaxAgeMs(headers['surrogate-control']);
    if (maxAgeMs <= 0) return undefined;
    const vary = headerText(headers.vary)
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    if (vary.includes('*')) return undefined;
    const length = Number(headers['content-length'] ?? 0);
    if (length > MAX_ENTRY_BYTES) return undefined;
    const tags = headerText(headers['surrogate-key']).split(/\s+/).filter(Boolean);
    return { maxAgeMs, vary: [...new Set(vary)].sort(), tags };
  }

  /** Keeps an answer whose upstream call began at `generation`, unless something was dropped since. */
  store(service: UpstreamService, req: IncomingMessage, generation: number, status: number, upstream: Record<string, string | string[] | undefined>, s: Storable, body: Buffer): void {
    if (generation !== this.generationValue || body.length > MAX_ENTRY_BYTES || body.length > this.o.maxBytes) return;
    const key = `${service} ${req.url}`;
    const variantKey = variantKeyOf(s.vary, req.headers);
    const stored = this.urls.get(key);
    // An answer that varies on other headers than the stored ones replaces them all (its URL's variants are one scheme).
    if (stored && stored.vary.join(',') !== s.vary.join(',')) for (const e of [...stored.byValues.values()]) this.remove(e);
    const old = stored?.byValues.get(variantKey);
    if (old) this.remove(old);
    // Removing the last variant drops the URL's record: look it up again.
    let variants = this.urls.get(key);
    if (!variants) {
      variants = { vary: s.vary, byValues: new Map() };
      this.urls.set(key, variants);
    }
    const headers: Array<[string, string | string[]]> = [];
    for (const [name, value] of Object.entries(upstream)) if (value !== undefined && !NOT_STORED.has(name)) headers.push([name, value]);
    const now = this.now();
    const etag = typeof upstream.etag === 'string' ? upstream.etag : undefined;
    const entry: Entry = { key, variantKey, service, status, headers, body, storedAt: now, expiresAt: now + s.maxAgeMs, tags: s.tags, etag };
    variants.byValues.set(variantKey, entry);
    this.order.add(entry);
    for (const tag of entry.tags) {
      let set = this.byTag.get(tag);
      if (!set) this.byTag.set(tag, (set = new Set()));
      set.add(entry);
    }
    let own = this.byService.get(service);
    if (!own) this.byService.set(service, (own = new Set()));
    own.add(entry);
    this.bytes += body.length;
    for (const oldest of this.order) {
      if (this.bytes <= this.o.maxBytes) break;
      this.remove(oldest);
    }
  }

  /** Drops what a write through the gateway may have changed: every entry of its service. */
  wrote(method: string | undefined, service: UpstreamService, status: number): void {
    if (!this.enabled || SAFE_METHODS.has(method ?? 'GET') || status >= 400) return;
    this.generationValue++;
    const own = this.byService.get(service);
    if (own) for (const e of [...own]) this.remove(e);
  }

  /** Drops every entry built from one of `tags`. */
  purgeTags(tags: readonly string[]): void {
    this.generationValue++;
    for (const tag of tags) {
      const set = this.byTag.get(tag);
      if (set) for (const e of [...set]) this.remove(e);
    }
  }

  clear(): void {
    this.generationValue++;
    for (const e of [...this.order]) this.remove(e);
  }

  private remove(e: Entry): void {
    if (!this.order.delete(e)) return;
    this.bytes -= e.body.length;
    const variants = this.urls.get(e.key);
    if (variants?.byValues.get(e.variantKey) === e) {
      variants.byValues.delete(e.variantKey);
      if (variants.byValues.size === 0) this.urls.delete(e.key);
    }
    for (const tag of e.tags) {
      const set = this.byTag.get(tag);
      if (!set) continue;
      set.delete(e);
      if (set.size === 0) this.byTag.delete(tag);
    }
    const own = this.byService.get(e.service);
    own?.delete(e);
    if (own?.size === 0) this.byService.delete(e.service);
  }
}

function variantKeyOf(vary: readonly string[], headers: IncomingHttpHeaders): string {
  if (vary.length === 0) return '';
  let key = '';
  for (const name of vary) key += `${headerText(headers[name])}\u0000`;
  return key;
}

/**
 * Passes an upstream answer on to the client while keeping a copy of its body, stored once the
 * answer ends whole (a client that went away, or an upstream that broke off, stores nothing).
 */
export class TeeToCache extends Writable {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private overflow = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly onWhole: (body: Buffer) => void,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.res.destroyed) {
      callback(new Error('client went away'));
      return;
    }
    if (!this.overflow) {
      this.size += chunk.length;
      if (this.size > MAX_ENTRY_BYTES) {
        this.overflow = true;
        this.chunks.length = 0;
      } else {
        this.chunks.push(chunk);
      }
    }
    if (this.res.write(chunk)) callback();
    else this.res.once('drain', () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.res.end();
    if (!this.overflow) this.onWhole(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size));
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (error && !this.res.destroyed) this.res.destroy();
    callback(error);
  }
}
