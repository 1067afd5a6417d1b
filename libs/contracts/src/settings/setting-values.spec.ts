import { isLocalizedText, isPublicSetting, localeChain, resolveLocalizedText, settingValueAsText } from './setting-values';

describe('setting values', () => {
  it('treats only public, non-sensitive fields as public', () => {
    expect(isPublicSetting({ public: true })).toBe(true);
    expect(isPublicSetting({ public: true, sensitive: true })).toBe(false);
    expect(isPublicSetting({})).toBe(false);
    expect(isPublicSetting({ public: false })).toBe(false);
  });

  it('builds the locale chain: requested, base, source, de-duplicated', () => {
    expect(localeChain('pl-PL', 'en')).toEqual(['pl-PL', 'pl', 'en']);
    expect(localeChain('pt_BR', 'en')).toEqual(['pt_BR', 'pt', 'en']);
    expect(localeChain('en', 'en')).toEqual(['en']);
    expect(localeChain(undefined, 'en')).toEqual(['en']);
    expect(localeChain('', 'pl')).toEqual(['pl']);
  });

  it('resolves localized text through the chain and then any non-empty value', () => {
    const v = { en: 'Hello', pl: 'Cześć', de: '' };
    expect(resolveLocalizedText(v, 'pl', 'en')).toEqual({ value: 'Cześć', locale: 'pl' });
    expect(resolveLocalizedText(v, 'de', 'en')).toEqual({ value: 'Hello', locale: 'en' });
    expect(resolveLocalizedText({ pl: 'Cześć', fr: 'Salut' }, 'de', 'en')).toEqual({ value: 'Salut', locale: 'fr' });
    expect(resolveLocalizedText({ de: '' }, 'de', 'en')).toBeUndefined();
    expect(resolveLocalizedText({}, undefined, 'en')).toBeUndefined();
  });

  it('recognises locale maps', () => {
    expect(isLocalizedText({ en: 'a' })).toBe(true);
    expect(isLocalizedText({})).toBe(true);
    expect(isLocalizedText({ en: 1 })).toBe(false);
    expect(isLocalizedText(['a'])).toBe(false);
    expect(isLocalizedText('a')).toBe(false);
    expect(isLocalizedText(null)).toBe(false);
  });

  it('renders values as text, empty as undefined', () => {
    expect(settingValueAsText('x')).toBe('x');
    expect(settingValueAsText(3.5)).toBe('3.5');
    expect(settingValueAsText(true)).toBe('true');
    expect(settingValueAsText({ a: 1 })).toBe('{"a":1}');
    expect(settingValueAsText('')).toBeUndefined();
    expect(settingValueAsText(null)).toBeUndefined();
    expect(settingValueAsText(undefined)).toBeUndefined();
  });
});
