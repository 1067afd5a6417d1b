import { PUBLIC_SETTINGS_DEFAULT_TTL_MS } from '@flowplane/contracts';
import type { PublicPageDto } from '../dto/content.dto';

/** One rendered public page: the answer and the locale its body came from. */
export interface RenderedPage {
  page: PublicPageDto;
  contentLocale: string;
  /** The JSON answer, built on first use by the fast path. */
  bytes?: Buffer;
}

interface Entry {
  rendered: RenderedPage;
  expiresAt: number;
}

/** Entries kept at most; the whole cache is dropped when it would grow past this (pages × request locales is small). */
const MAX_ENTRIES = 10_000;

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

  constructor(private readonly now: () => number = Date.now) {}

  get(slug: string, locale: string): RenderedPage | undefined {
    const key = `${slug}\u0000${locale}`;
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (this.now() < e.expiresAt) return e.rendered;
    this.entries.delete(key);
    return undefined;
  }

  /** The current generation, to pass back to `set` after rendering. */
  mark(): number {
    return this.generation;
  }

  set(slug: string, locale: string, rendered: RenderedPage, generation: number): void {
    if (generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(`${slug}\u0000${locale}`, { rendered, expiresAt: this.now() + PUBLIC_PAGE_TTL_MS });
  }

  drop(slug: string): void {
    this.generation++;
    const prefix = `${slug}\u0000`;
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
