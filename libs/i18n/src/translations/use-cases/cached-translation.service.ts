import { Inject, Injectable, Optional } from '@nestjs/common';
import { I18nConfig } from '../../i18n.config';
import { I18nException } from '../../i18n.exception';
import { MessageInterpolator } from '../domain/interpolation';
import { localeChain } from '../domain/locale-chain';
import type { ProvenanceEntry } from '../domain/translation-row.entity';
import { TranslationRepository } from '../persistence/translation.repository';
import { CatalogTextExpander, RequestLocaleSource, type TranslateArgs, TranslationService } from '../translation.service';
import { WriteTranslationUseCase } from './write-translation.use-case';

type Bucket = ReadonlyMap<string, string>;

/** Most merged (namespace, locale) views kept. */
const MAX_VIEWS = 500;

/**
 * The Translation service with the cache of catalog rule 7: one bucket per (namespace, locale), the
 * raw texts of that locale, loaded on first use and dropped by a write to it (here, or on a peer
 * through `i18n.updated`). Lookups walk the chain of rule 2 over the buckets and, once they are
 * loaded, never touch the store; a load that an invalidation overtook is not kept.
 */
@Injectable()
export class CachedTranslationService extends TranslationService {
  private readonly buckets = new Map<string, Bucket>();
  /** The same buckets by namespace then locale: the lookup path builds no key string. */
  private readonly byNs = new Map<string, Map<string, Bucket>>();
  private readonly loading = new Map<string, Promise<Bucket>>();
  /** Bumped per bucket by every invalidation, so a load that started earlier is discarded. */
  private readonly generations = new Map<string, number>();
  private epoch = 0;
  private readonly chains = new Map<string, readonly string[]>();
  private readonly interpolator = new MessageInterpolator();
  private readonly listeners = new Set<(ns?: string) => void>();
  /**
   * Per namespace and requested locale, the chain's buckets merged (least specific first, the
   * requested locale overwriting): a cached lookup is one Map get, with no chain walk. Derived from
   * the buckets only; a write to a bucket drops the views whose chain holds it.
   */
  private readonly views = new Map<string, Map<string, ReadonlyMap<string, string>>>();
  private viewCount = 0;

  constructor(
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(TranslationRepository) private readonly repository: TranslationRepository,
    @Inject(WriteTranslationUseCase) private readonly writer: WriteTranslationUseCase,
    @Optional() @Inject(RequestLocaleSource) private readonly requestLocale?: RequestLocaleSource,
    @Optional() @Inject(CatalogTextExpander) private readonly expander?: CatalogTextExpander,
  ) {
    super();
    writer.onWritten((ns, locale) => this.invalidate(ns, locale));
  }

  contextLocale(): string {
    return this.requestLocale?.current() || this.config.defaultLocale;
  }

  chain(locale: string): readonly string[] {
    let chain = this.chains.get(locale);
    if (!chain) {
      chain = Object.freeze(localeChain(locale, this.config.fallbackLocale, this.config.defaultLocale));
      // Locales come from callers; keep the memo bounded.
      if (this.chains.size > 1000) this.chains.clear();
      this.chains.set(locale, chain);
    }
    return chain;
  }

  translate(ns: string, key: string, locale?: string, args?: TranslateArgs): Promise<string> {
    return this.translateLocale(ns, locale || this.contextLocale(), key, args);
  }

  translateCached(ns: string, key: string, locale?: string, args?: TranslateArgs): string | undefined {
    if (!this.config.enabled) return undefined;
    const l = locale || this.contextLocale();
    const view = this.views.get(ns)?.get(l) ?? this.buildView(ns, l);
    if (view === undefined) return undefined;
    const value = view.get(key);
    if (value === undefined) return key;
    // Settings tokens are expanded by an async reader: the promise path does that.
    if (this.expander !== undefined && value.includes('[[')) return undefined;
    return this.interpolator.render(value, args);
  }

  translateLocale(ns: string, locale: string, key: string, args?: TranslateArgs): Promise<string> {
    // A rejection, not a throw: callers chain `.catch` on the promise.
    if (!this.config.enabled) return Promise.reject(I18nException.notConfigured());
    const hit = this.translateCached(ns, key, locale, args);
    if (hit !== undefined) return Promise.resolve(hit);
    const chain = this.chain(locale || this.contextLocale());
    // Fast path: every bucket of the chain is loaded, so the answer needs no await.
    const byLocale = this.byNs.get(ns);
    if (!byLocale) return this.translateSlow(ns, chain, key, args);
    for (const l of chain) {
      const bucket = byLocale.get(l);
      if (!bucket) return this.translateSlow(ns, chain, key, args);
      const value = bucket.get(key);
      if (value !== undefined) return this.withTokens(this.interpolator.render(value, args), chain[0]);
    }
    return Promise.resolve(key);
  }

  /** Synchronous lookup for callers that already loaded the chain (`undefined` when a bucket is not cached). */
  lookupCached(ns: string, locale: string, key: string): string | undefined {
    const byLocale = this.byNs.get(ns);
    for (const l of this.chain(locale)) {
      const bucket = byLocale?.get(l);
      if (!bucket) return undefined;
      const value = bucket.get(key);
      if (value !== undefined) return value;
    }
    return key;
  }

  async messages(ns: string, locale: string): Promise<Record<string, string>> {
    this.assertEnabled();
    const out: Record<string, string> = {};
    if (ns !== '') {
      // Rule 6: a namespace gives its raw translations, no fallback chain.
      for (const [k, v] of await this.bucket(ns, locale)) out[k] = v;
      return out;
    }
    const chain = this.chain(locale || this.contextLocale());
    // Least specific first, so the requested locale overwrites fallback entries.
    for (let i = chain.length - 1; i >= 0; i--) for (const [k, v] of await this.bucket(ns, chain[i])) out[k] = v;
    return out;
  }

  async upsert(ns: string, key: string, locale: string, value: string, provenance?: ProvenanceEntry): Promise<void> {
    this.assertEnabled();
    await this.writer.execute({
      ns,
      key,
      cells: [{ locale, value, provenance: provenance ?? { source: 'human', at: new Date().toISOString() } }],
    });
  }

  async delete(ns: string, key: string, locale: string): Promise<boolean> {
    this.assertEnabled();
    return this.writer.deleteCell(ns, key, locale);
  }

  invalidateAll(): void {
    this.epoch++;
    this.buckets.clear();
    this.byNs.clear();
    this.loading.clear();
    this.generations.clear();
    this.views.clear();
    this.viewCount = 0;
    for (const l of this.listeners) l();
  }

  invalidate(ns: string, locale: string): void {
    const k = bucketKey(ns, locale);
    this.buckets.delete(k);
    this.byNs.get(ns)?.delete(locale);
    this.loading.delete(k);
    this.generations.set(k, (this.generations.get(k) ?? 0) + 1);
    const views = this.views.get(ns);
    if (views) {
      for (const requested of views.keys()) {
        if (!this.chain(requested).includes(locale)) continue;
        views.delete(requested);
        this.viewCount--;
      }
    }
    for (const l of this.listeners) l(ns);
  }

  /** True when every bucket `messages(ns, locale)` reads is cached (no write overtook a build from them). */
  isCurrent(ns: string, locale: string): boolean {
    const locales = ns === '' ? this.chain(locale || this.contextLocale()) : [locale];
    return locales.every((l) => this.buckets.has(bucketKey(ns, l)));
  }

  /** Calls `listener` after every invalidation (with the namespace, or none for all); for derived caches. */
  onInvalidate(listener: (ns?: string) => void): void {
    this.listeners.add(listener);
  }

  /** The cached (ns, locale) bucket, loaded on first use. */
  bucket(ns: string, locale: string): Promise<Bucket> {
    const k = bucketKey(ns, locale);
    const cached = this.buckets.get(k);
    if (cached) return Promise.resolve(cached);
    let pending = this.loading.get(k);
    if (!pending) {
      const generation = this.generations.get(k) ?? 0;
      const epoch = this.epoch;
      pending = this.repository.bucket(ns, locale).then(
        (loaded) => {
          if (this.epoch === epoch && (this.generations.get(k) ?? 0) === generation) {
            this.buckets.set(k, loaded);
            let byLocale = this.byNs.get(ns);
            if (!byLocale) this.byNs.set(ns, (byLocale = new Map()));
            byLocale.set(locale, loaded);
            this.loading.delete(k);
          }
          return loaded;
        },
        (e: unknown) => {
          if (this.loading.get(k) === pending) this.loading.delete(k);
          throw e;
        },
      );
      this.loading.set(k, pending);
    }
    return pending;
  }

  /** The merged view of (ns, locale) from the cached buckets of its chain; undefined while one is not loaded. */
  private buildView(ns: string, locale: string): ReadonlyMap<string, string> | undefined {
    const byLocale = this.byNs.get(ns);
    if (!byLocale) return undefined;
    const chain = this.chain(locale);
    const buckets: Bucket[] = [];
    for (const l of chain) {
      const bucket = byLocale.get(l);
      if (!bucket) return undefined;
      buckets.push(bucket);
    }
    const view = new Map<string, string>();
    for (let i = buckets.length - 1; i >= 0; i--) for (const [k, v] of buckets[i]) view.set(k, v);
    // Locales come from callers; keep the views bounded (they rebuild from the buckets).
    if (this.viewCount >= MAX_VIEWS) {
      this.views.clear();
      this.viewCount = 0;
    }
    let views = this.views.get(ns);
    if (!views) this.views.set(ns, (views = new Map()));
    views.set(locale, view);
    this.viewCount++;
    return view;
  }

  private async translateSlow(ns: string, chain: readonly string[], key: string, args?: TranslateArgs): Promise<string> {
    // The whole chain, even past the link that answers: the next lookups of this (ns, locale) are
    // then served by `translateCached`. A failed load is retried by the walk below if it matters.
    await Promise.allSettled(chain.map((l) => this.bucket(ns, l)));
    for (const l of chain) {
      const value = (await this.bucket(ns, l)).get(key);
      if (value !== undefined) return this.withTokens(this.interpolator.render(value, args), chain[0]);
    }
    return key;
  }

  /** Settings tokens after interpolation (settings rule 5), as plain text, in the requested locale. */
  private withTokens(text: string, locale: string): Promise<string> {
    return this.expander && text.includes('[[') ? this.expander.expandPlain(text, locale) : Promise.resolve(text);
  }

  private assertEnabled(): void {
    if (!this.config.enabled) throw I18nException.notConfigured();
  }
}

function bucketKey(ns: string, locale: string): string {
  return `${ns}\u0000${locale}`;
}
