import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LOCALE_PATTERN } from '@flowplane/contracts';

/** Locale used when a request names none and `I18N_DEFAULT_LOCALE` is unset. */
export const DEFAULT_REQUEST_LOCALE = 'pl';

/** Query parameter and cookie that name the caller's locale. */
export const LOCALE_PARAM = 'lang';

/** Longest locale accepted from a request (the longest practical BCP 47 tag is 35 characters). */
const MAX_LOCALE_LENGTH = 35;

const storage = new AsyncLocalStorage<{ locale: string }>();

/**
 * The locale of the request being handled, or `''` outside a request (a bus consumer, a timer,
 * start-up), which callers read as "the source language".
 */
export function currentLocale(): string {
  return storage.getStore()?.locale ?? '';
}

/** Runs `fn` with `locale` as the current locale: for work that knows its locale without a request. */
export function runWithLocale<T>(locale: string, fn: () => T): T {
  return storage.run({ locale }, fn);
}

/**
 * A locale as a request may carry it: any string of the shape of a language tag or URL code
 * (`pl`, `pl-PL`, `zh_Hant`). Whether it is a registered locale does not matter here; values of
 * another shape (markup, whitespace, 200 characters) are ignored so they never reach a store key,
 * a log line or a cache key.
 */
export function isRequestLocale(value: string | undefined): value is string {
  return typeof value === 'string' && value.length <= MAX_LOCALE_LENGTH && LOCALE_PATTERN.test(value);
}

/**
 * The first language of an Accept-Language header with its quality and other parameters removed
 * (`pl-PL,pl;q=0.9` gives `pl-PL`; `de;q=0.5, en` gives `de`: order, not quality, decides).
 * Empty entries are skipped; the wildcard `*` or a malformed first tag gives undefined.
 */
export function firstAcceptLanguage(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return undefined;
  for (const entry of value.split(',')) {
    const tag = entry.split(';', 1)[0].trim();
    if (tag === '') continue;
    return isRequestLocale(tag) ? tag : undefined;
  }
  return undefined;
}

/** The `lang` cookie of a Cookie header, percent-decoded; undefined when absent or unreadable. */
export function langCookie(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(';') : header;
  if (!value || !value.includes(LOCALE_PARAM)) return undefined;
  for (const pair of value.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== LOCALE_PARAM) continue;
    let raw = pair.slice(eq + 1).trim();
    if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1);
    try {
      return decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The first `lang` query parameter of a request URL. */
export function langQuery(url: string | undefined): string | undefined {
  const q = url?.indexOf('?') ?? -1;
  if (q < 0 || !url!.includes(`${LOCALE_PARAM}=`, q)) return undefined;
  return new URLSearchParams(url!.slice(q + 1)).get(LOCALE_PARAM) ?? undefined;
}

/**
 * The locale of a request (localization.md, locale rule 4): the `lang` query parameter, the `lang`
 * cookie, the first tag of Accept-Language, then `defaultLocale`. A source holding a value that is
 * not a locale is skipped.
 */
export function resolveRequestLocale(req: Pick<IncomingMessage, 'url' | 'headers'>, defaultLocale: string): string {
  const query = langQuery(req.url);
  if (isRequestLocale(query)) return query;
  const cookie = langCookie(req.headers.cookie);
  if (isRequestLocale(cookie)) return cookie;
  return firstAcceptLanguage(req.headers['accept-language']) ?? defaultLocale;
}

/**
 * The configured default locale: `I18N_DEFAULT_LOCALE`, else `pl`. Throws on a value that is not a
 * locale, so a typo fails the boot instead of tagging every request with it.
 */
export function defaultLocaleFromEnv(env: Record<string, string | undefined>): string {
  const value = env.I18N_DEFAULT_LOCALE?.trim() || DEFAULT_REQUEST_LOCALE;
  if (!isRequestLocale(value)) throw new Error(`I18N_DEFAULT_LOCALE must be a locale such as pl or pt-BR, got ${JSON.stringify(value)}`);
  return value;
}

/** Express middleware: resolves the request's locale and scopes it for everything the request runs. */
export function requestLocaleMiddleware(defaultLocale: string) {
  return (req: IncomingMessage, _res: ServerResponse, next: () => void): void => {
    storage.run({ locale: resolveRequestLocale(req, defaultLocale) }, next);
  };
}
