import { PUBLIC_SETTINGS_DEFAULT_TTL_MS } from '@flowplane/contracts';
import type { PublicPageDto } from '../dto/content.dto';

/** One rendered public page: the answer and the locale its body came from. */
export interface RenderedPage {
  page: PublicPageDto;
  contentLocale: string;
  /** The JSON answer, built on first use by the fast path. */
  bytes?: Buffer;
  /** Rendered with the settings read (not left verbatim for a failed read): shared caches may keep it. */
  shareable?: boolean;
  /** Express's weak ETag of `bytes`, built on first use by the fast path. */
  etag?: string;
  /** Its `pageSurrogateHeaders`, built on first use by the fast path. */
  surrogate?: Array<[string, string]>;
}

/**
 * How long the gateway may keep a rendered page (`Surrogate-Control`). Writes through the gateway,
 * page changes and settings changes drop it at once; this bounds only what no event announces,
 * such as a translation written by a background sweep.
 */
export const PAGE_EDGE_MAX_AGE_S = 2;

/** The headers that let the gateway keep a rendered page and drop it when the page or a setting changes. */
export function pageSurrogateHeaders(slug: string): Array<[string, string]> {
  return [
    ['Surrogate-Control', `max-age=${PAGE_EDGE_MAX_AGE_S}`],
    ['Surrogate-Key', `page:${slug} settings`],
  ];
}

interface Entry {
  rendered: RenderedPage;
  expiresAt: number;
  size: number;
}

/**
 * Entries and text kept at most; the whole cache is dropped when it would grow past either. Request
 * locales are any string of a locale's shape, so the bound is in bytes too: cycling made-up locales
 * on a large page costs renders, never memory.
 */
const MAX_ENTRIES = 10_000;
const MAX_CHARS = 16 * 1024 * 1024;

/**
 * Longest an entry is served: the public settings reader's own TTL, so without a bus (no drop on a
 * peer's write or a settings change) a page is as fresh as its settings.
 */
export const PUBLIC_PAGE_TTL_MS = PUBLIC_SETTINGS_DEFAULT_TTL_MS;

/**
 * Rendered public pages by (slug, request locale), so repeated reads skip the store and the token
 * expansion. Dropped per slug on every page write (this replica's after commit, a peer's through
 * `content.page.changed`) and whole on every settings change; each entry lives PUBLIC_PAGE_TTL_MS at
 * most. A render started before a drop is not
 * stored (the generation moved), so a read racing a write never caches the old page.
 */
export class PublicPageCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private chars = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get(slug: string, locale: string): RenderedPage | undefined {
    const key = `${slug}\u0000${locale}`;
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (this.now() < e.expiresAt) return e.rendered;
    this.remove(key, e);
    return undefined;
  }

  /** The current generation, to pass back to `set` after rendering. */
  mark(): number {
    return this.generation;
  }

  set(slug: string, locale: string, rendered: RenderedPage, generation: number): void {
    if (generation !== this.generation) return;
    const p = rendered.page;
    // Twice the text: the answer object and, once the fast path served it, its JSON bytes.
    const size = 2 * (p.title.length + p.body.length + (p.seo.title?.length ?? 0) + (p.seo.description?.length ?? 0) + 200);
    if (size > MAX_CHARS) return;
    const key = `${slug}\u0000${locale}`;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    if (this.entries.size >= MAX_ENTRIES || this.chars + size > MAX_CHARS) this.clearEntries();
    this.entries.set(key, { rendered, expiresAt: this.now() + PUBLIC_PAGE_TTL_MS, size });
    this.chars += size;
  }

  drop(slug: string): void {
    this.generation++;
    const prefix = `${slug}\u0000`;
    for (const [k, e] of this.entries) if (k.startsWith(prefix)) this.remove(k, e);
  }

  clear(): void {
    this.generation++;
    this.clearEntries();
  }

  /** Text held now, in characters (for tests and metrics). */
  get size(): number {
    return this.chars;
  }

  private remove(key: string, e: Entry): void {
    this.entries.delete(key);
    this.chars -= e.size;
  }

  private clearEntries(): void {
    this.entries.clear();
    this.chars = 0;
  }
}
