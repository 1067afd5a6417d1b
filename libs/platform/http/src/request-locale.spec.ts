import { currentLocale, defaultLocaleFromEnv, firstAcceptLanguage, isRequestLocale, langCookie, langQuery, resolveRequestLocale, runWithLocale } from './request-locale';

const req = (url: string, headers: Record<string, string | string[]> = {}) => ({ url, headers });

describe('Accept-Language: the first tag without its quality', () => {
  it.each([
    ['pl-PL,pl;q=0.9,en;q=0.8', 'pl-PL'],
    ['de;q=0.5, en', 'de'], // order decides, not quality
    ['en', 'en'],
    ['  fr-CA  ;  q=1  ', 'fr-CA'],
    [' , ,es-ES', 'es-ES'], // empty entries are not tags
    ['zh_Hant-TW;q=0.7', 'zh_Hant-TW'],
    ['EN-us', 'EN-us'], // kept as sent: any locale string is accepted
  ])('%j gives %j', (header, expected) => {
    expect(firstAcceptLanguage(header)).toBe(expected);
  });

  it.each([[''], ['   '], [','], ['*'], ['*;q=0.5, en'], ['<script>, en'], ['e, en'], [`${'a'.repeat(8)}-${'b'.repeat(8)}-${'c'.repeat(8)}-${'d'.repeat(8)}-e`]])(
    '%j gives nothing: the first tag is absent, a wildcard or not a locale',
    (header) => {
      expect(firstAcceptLanguage(header)).toBeUndefined();
    },
  );

  it('reads a repeated header as one list', () => {
    expect(firstAcceptLanguage(['cs;q=0.9', 'en'])).toBe('cs');
    expect(firstAcceptLanguage(undefined)).toBeUndefined();
  });
});

describe('lang cookie and query', () => {
  it('finds lang among other cookies, unquoted and percent-decoded', () => {
    expect(langCookie('session=abc; lang=de; theme=dark')).toBe('de');
    expect(langCookie('lang="pt-BR"')).toBe('pt-BR');
    expect(langCookie('lang=pt%2DBR')).toBe('pt-BR');
    expect(langCookie('xlang=de; langx=fr')).toBeUndefined();
    expect(langCookie('lang=%E0%A4%A')).toBeUndefined();
    expect(langCookie(undefined)).toBeUndefined();
  });

  it('reads the first lang query parameter only', () => {
    expect(langQuery('/x?lang=uk&lang=de')).toBe('uk');
    expect(langQuery('/x?a=1&lang=cs')).toBe('cs');
    expect(langQuery('/x?slang=cs')).toBeUndefined();
    expect(langQuery('/x/lang=cs')).toBeUndefined();
    expect(langQuery('/x')).toBeUndefined();
  });
});

describe('resolveRequestLocale: query, cookie, Accept-Language, default (rule 4)', () => {
  const all = { cookie: 'lang=de', 'accept-language': 'fr;q=0.9' };

  it('takes each source in order', () => {
    expect(resolveRequestLocale(req('/x?lang=uk', all), 'pl')).toBe('uk');
    expect(resolveRequestLocale(req('/x', all), 'pl')).toBe('de');
    expect(resolveRequestLocale(req('/x', { 'accept-language': 'fr;q=0.9' }), 'pl')).toBe('fr');
    expect(resolveRequestLocale(req('/x'), 'pl')).toBe('pl');
  });

  it('accepts any locale string, registered or not', () => {
    expect(resolveRequestLocale(req('/x?lang=tlh-Latn'), 'pl')).toBe('tlh-Latn');
  });

  it('skips a source whose value is not a locale and falls through to the next', () => {
    expect(resolveRequestLocale(req('/x?lang=%3Cb%3E', all), 'pl')).toBe('de');
    expect(resolveRequestLocale(req('/x?lang=', { cookie: 'lang=a b', 'accept-language': 'fr' }), 'pl')).toBe('fr');
    expect(resolveRequestLocale(req(`/x?lang=${'x'.repeat(200)}`, { 'accept-language': '*' }), 'en')).toBe('en');
  });
});

describe('currentLocale', () => {
  it("is '' outside a request and the scoped locale inside one, across awaits", async () => {
    expect(currentLocale()).toBe('');
    await runWithLocale('cs', async () => {
      await new Promise((r) => setTimeout(r, 1));
      expect(currentLocale()).toBe('cs');
    });
    expect(currentLocale()).toBe('');
  });
});

describe('defaultLocaleFromEnv', () => {
  it('reads I18N_DEFAULT_LOCALE, pl when unset or blank, and refuses a value that is not a locale', () => {
    expect(defaultLocaleFromEnv({})).toBe('pl');
    expect(defaultLocaleFromEnv({ I18N_DEFAULT_LOCALE: '  ' })).toBe('pl');
    expect(defaultLocaleFromEnv({ I18N_DEFAULT_LOCALE: ' en-GB ' })).toBe('en-GB');
    expect(() => defaultLocaleFromEnv({ I18N_DEFAULT_LOCALE: 'en gb' })).toThrow(/I18N_DEFAULT_LOCALE must be a locale/);
    expect(isRequestLocale('en-GB')).toBe(true);
  });
});
