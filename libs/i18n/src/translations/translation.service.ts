import type { ProvenanceEntry } from './domain/translation-row.entity';

/** Values a message's placeholders are filled from (`{{.Name}}`, `{{.User.Name}}`). */
export type TranslateArgs = Readonly<Record<string, unknown>>;

/**
 * The Translation service other modules use (localization.md, "Service operations"): lookups through
 * the locale chain (catalog rules 2 and 3) with interpolation (rule 5), the per-(namespace, locale)
 * cache (rule 7), and writes that invalidate their bucket and broadcast `i18n.updated`.
 * Inject it by this class; `TranslationsFeatureModule` provides it.
 */
export abstract class TranslationService {
  /**
   * Translate(ctx, ns, key, args): `key` of namespace `ns` in `locale`; an empty or absent locale
   * means the request's locale (`''` outside a request: the default locale). Resolves the key itself
   * when nothing in the chain has it, never an empty string.
   */
  abstract translate(ns: string, key: string, locale?: string, args?: TranslateArgs): Promise<string>;

  /**
   * Translate without a promise, for hot paths (nodes, renderers): the same answer as `translate`
   * when it can be given from the cache (every bucket of the chain loaded), otherwise `undefined`
   * (a bucket not loaded yet, a message with settings tokens to expand, the service disabled): call
   * `translate` then, which loads and answers. A hit is one lookup in a merged view of the chain.
   */
  abstract translateCached(ns: string, key: string, locale?: string, args?: TranslateArgs): string | undefined;

  /** TranslateLocale(ctx, ns, locale, key, args): the spec's argument order, with an explicit locale. */
  abstract translateLocale(ns: string, locale: string, key: string, args?: TranslateArgs): Promise<string>;

  /**
   * Messages(ctx, ns, locale): the catalog of catalog rule 6. The empty namespace gives the merged
   * chain (least specific first, the requested locale overwriting); a namespace gives its raw
   * translations in `locale` only. Values as stored (placeholders unfilled, tokens unexpanded).
   */
  abstract messages(ns: string, locale: string): Promise<Record<string, string>>;

  /** Upsert(ctx, ns, key, locale, value): writes one cell (provenance `human` unless given). */
  abstract upsert(ns: string, key: string, locale: string, value: string, provenance?: ProvenanceEntry): Promise<void>;

  /** Delete(ctx, ns, key, locale): removes one cell; false when it did not exist. */
  abstract delete(ns: string, key: string, locale: string): Promise<boolean>;

  /** InvalidateAll(): drops every cached bucket of this process (and the served catalog bodies). */
  abstract invalidateAll(): void;

  /** Drops the cached (ns, locale) bucket after a write made elsewhere (imports, report-keys). */
  abstract invalidate(ns: string, locale: string): void;

  /** The lookup chain of `locale`, most specific first (catalog rule 2). */
  abstract chain(locale: string): readonly string[];

  /** The locale a lookup without one uses: the request's, else the configured default. */
  abstract contextLocale(): string;
}

/**
 * Post-processing of catalog strings after interpolation (settings tokens, rule 5: parameters first,
 * then tokens). Provided by the tokens feature; without it strings are served as they are.
 */
export abstract class CatalogTextExpander {
  /** Plain-text expansion of `[[ module.key ]]` tokens for `locale`. */
  abstract expandPlain(text: string, locale: string): Promise<string>;
  /** Calls `listener` after every settings change, once the expander reads the new values. */
  abstract onSettingsChanged(listener: () => void): void;
}

/** Supplies the request's locale (`''` outside a request); the request-locale middleware provides it. */
export abstract class RequestLocaleSource {
  abstract current(): string;
}
