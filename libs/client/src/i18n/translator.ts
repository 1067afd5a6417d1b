import { formatMessage, type MessageParams } from './format';

/** A `fetch` (the global one, or a request-scoped one on a server so the `lang` cookie travels: convention 8). */
export type FetchLike = (input: string, init?: { method?: string; headers?: Record<string, string>; signal?: AbortSignal }) => Promise<{
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  json(): Promise<unknown>;
}>;

export interface TranslatorOptions {
  /** The platform's origin (`https://example.com`) or its API root (`…/api/v1`); default: the page's origin (''). */
  baseUrl?: string;
  /** The locale code; default: the `lang` cookie, else `<html lang>`, else navigator.language, else the service's default. */
  locale?: string;
  /** Catalog namespace; default the empty (merged) one. */
  ns?: string;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
}

/** An active locale as `GET /i18n/locales` lists it. */
export interface PublicLocale {
  code: string;
  languageTag: string;
  name?: string;
}

/** A catalog could not be loaded (network failure or a non-2xx answer); `$t` keeps answering with defaults. */
export class CatalogLoadError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'CatalogLoadError';
  }
}

export interface Translator {
  /** The catalog value, else the inline default, else the key; `{token}` and ICU plurals filled from params. */
  t(key: string, fallback?: string, params?: MessageParams): string;
  /** Fetches (or revalidates with its ETag) the catalog of the current locale and namespace. */
  load(): Promise<ReadonlyMap<string, string>>;
  /** Switches locale (a catalog loaded before is used at once) and loads its catalog. */
  setLocale(code: string): Promise<void>;
  /** Convention 3: in a browser sets the `lang` cookie and reloads the page; elsewhere switches the locale. */
  setLanguage(code: string): Promise<void>;
  /** The active locales (`GET /i18n/locales`). */
  activeLocales(): Promise<PublicLocale[]>;
  /** Whether the loaded catalog holds the key. */
  has(key: string): boolean;
  /** The current locale ('' until the first load when none was given or detected). */
  readonly locale: string;
  readonly ns: string;
  /** The loaded catalog of the current locale (empty before load). */
  readonly messages: ReadonlyMap<string, string>;
}

/** A catalog kept with the ETag it came with. */
interface CachedCatalog {
  etag?: string;
  messages: Map<string, string>;
}

const EMPTY: ReadonlyMap<string, string> = new Map();

/** The lang cookie lasts a year (convention 3). */
const LANG_COOKIE_MAX_AGE = 365 * 24 * 3600;

interface BrowserGlobals {
  document?: { cookie?: string; documentElement?: { lang?: string } };
  navigator?: { language?: string };
  location?: { reload(): void };
}

const browser = globalThis as BrowserGlobals;

/** A translator over the platform's catalog; works in browsers and Node 20. */
export function createTranslator(options: TranslatorOptions = {}): Translator {
  const api = apiRoot(options.baseUrl ?? '');
  const ns = options.ns ?? '';
  const doFetch: FetchLike = options.fetch ?? ((input, init) => (globalThis.fetch as unknown as FetchLike)(input, init));
  const catalogs = new Map<string, CachedCatalog>();
  let locale = options.locale || detectLocale();
  let messages: ReadonlyMap<string, string> = EMPTY;

  async function load(): Promise<ReadonlyMap<string, string>> {
    const requested = locale;
    const cached = catalogs.get(requested);
    const query = new URLSearchParams();
    if (requested) query.set('locale', requested);
    if (ns) query.set('ns', ns);
    const qs = query.toString();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (cached?.etag) headers['if-none-match'] = cached.etag;
    let res: Awaited<ReturnType<FetchLike>>;
    try {
      res = await doFetch(`${api}/i18n/messages${qs ? `?${qs}` : ''}`, { headers });
    } catch (e) {
      throw new CatalogLoadError(`catalog ${requested || '(default locale)'} could not be loaded: ${(e as Error).message}`);
    }
    if (res.status === 304 && cached) return adopt(requested, cached);
    if (!res.ok) throw new CatalogLoadError(`catalog ${requested || '(default locale)'} answered ${res.status}`, res.status);
    let body: { locale?: unknown; messages?: unknown };
    try {
      body = ((await res.json()) ?? {}) as typeof body;
    } catch (e) {
      throw new CatalogLoadError(`catalog ${requested || '(default locale)'} is not JSON: ${(e as Error).message}`, res.status);
    }
    const map = new Map<string, string>();
    if (body.messages && typeof body.messages === 'object') {
      for (const [k, v] of Object.entries(body.messages as Record<string, unknown>)) if (typeof v === 'string') map.set(k, v);
    }
    const entry: CachedCatalog = { etag: res.headers.get('etag') ?? undefined, messages: map };
    // Without a locale of its own the translator takes the one the service resolved (its default).
    const served = requested || (typeof body.locale === 'string' ? body.locale : '');
    catalogs.set(served, entry);
    return adopt(served, entry, requested);
  }

  /** Makes a loaded catalog current unless the locale moved on while it loaded. */
  function adopt(served: string, entry: CachedCatalog, requested = served): ReadonlyMap<string, string> {
    if (locale === requested) {
      locale = served;
      messages = entry.messages;
    }
    return entry.messages;
  }

  const translator: Translator = {
    t(key, fallback, params) {
      const text = messages.get(key) ?? (fallback || key);
      return formatMessage(locale, text, params);
    },
    load,
    async setLocale(code) {
      locale = code;
      messages = catalogs.get(code)?.messages ?? EMPTY;
      await load();
    },
    async setLanguage(code) {
      if (browser.document && browser.location && writeLangCookie(code)) {
        browser.location.reload();
        return;
      }
      // Outside a browser, or where the page may not keep cookies (a sandboxed or opaque origin).
      await translator.setLocale(code);
    },
    async activeLocales() {
      let res: Awaited<ReturnType<FetchLike>>;
      try {
        res = await doFetch(`${api}/i18n/locales`, { headers: { accept: 'application/json' } });
      } catch (e) {
        throw new CatalogLoadError(`active locales could not be loaded: ${(e as Error).message}`);
      }
      if (!res.ok) throw new CatalogLoadError(`active locales answered ${res.status}`, res.status);
      return (await res.json()) as PublicLocale[];
    },
    has: (key) => messages.has(key),
    get locale() {
      return locale;
    },
    ns,
    get messages() {
      return messages;
    },
  };
  return translator;
}

/** `…/api/v1` of a base URL given as an origin or as the API root itself. */
function apiRoot(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return /\/api\/v1$/.test(trimmed) ? trimmed : `${trimmed}/api/v1`;
}

/**
 * The page's language: the `lang` cookie (the choice setLanguage made, which a static page's
 * `<html lang>` does not reflect), `<html lang>`, the browser's language; '' outside a browser,
 * where the service's default applies.
 */
export function detectLocale(): string {
  if (!browser.document) return '';
  const m = /(?:^|;\s*)lang=([^;]*)/.exec(readCookies());
  if (m?.[1]) {
    try {
      return decodeURIComponent(m[1]);
    } catch {
      // an undecodable cookie is ignored
    }
  }
  return browser.document.documentElement?.lang || browser.navigator?.language || '';
}

/** The page's cookies; '' where reading them is refused (a sandboxed or opaque origin throws SecurityError). */
function readCookies(): string {
  try {
    return browser.document?.cookie ?? '';
  } catch {
    return '';
  }
}

/** Sets the `lang` cookie (path /, SameSite=Lax, a year); false where the page may not write cookies. */
function writeLangCookie(code: string): boolean {
  try {
    browser.document!.cookie = `lang=${encodeURIComponent(code)}; path=/; max-age=${LANG_COOKIE_MAX_AGE}; SameSite=Lax`;
    return true;
  } catch {
    return false;
  }
}
