import { createTranslator, formatMessage } from './index';

const DAYS_PL = '{count, plural, one {# dzień} few {# dni} many {# dni} other {# dnia}}';
const FILES_PL = '{count, plural, =0 {Brak plików} one {# plik} few {# pliki} many {# plików} other {# pliku}}';
const FILES_EN = '{count, plural, =0 {No files} one {# file} other {# files}}';

describe('$t', () => {
  const t = (messages: Record<string, string>, locale = 'en') => {
    // A translator whose catalog is served by a fake fetch: what load() adopts.
    const translator = createTranslator({
      baseUrl: 'http://catalog.test',
      locale,
      fetch: async () => ({ status: 200, ok: true, headers: { get: () => null }, json: async () => ({ locale, namespace: '', messages }) }),
    });
    return translator.load().then(() => translator.t);
  };

  it('answers the catalog value, else the inline default, else the key', async () => {
    const $t = await t({ 'cart.title': 'Koszyk' }, 'pl');
    expect($t('cart.title', 'Cart')).toBe('Koszyk');
    expect($t('cart.empty', 'Your cart is empty')).toBe('Your cart is empty');
    expect($t('cart.unknown')).toBe('cart.unknown');
    expect($t('cart.unknown', '')).toBe('cart.unknown');
  });

  it('keys named like Object.prototype members are plain misses', async () => {
    const $t = await t({});
    expect($t('constructor', 'Build')).toBe('Build');
    expect($t('toString')).toBe('toString');
  });

  it('fills {token} from params and leaves tokens without a param as written', async () => {
    const $t = await t({ greet: 'Hello {name}, you have {n} new messages in {folder}' });
    expect($t('greet', '', { name: 'Ala', n: 3 })).toBe('Hello Ala, you have 3 new messages in {folder}');
    expect($t('greet')).toBe('Hello {name}, you have {n} new messages in {folder}');
    expect($t('missing', 'Dear {user.name}', { user: { name: 'Ola' } })).toBe('Dear Ola');
    // The service's Go-template placeholders are filled the same way.
    expect($t('missing', 'Your cart, {{.Name}}', { Name: 'Jan' })).toBe('Your cart, Jan');
    expect($t('missing', 'Your cart, {{.Name}}')).toBe('Your cart, {{.Name}}');
  });

  it('chooses Polish plural branches with the locale rules: 1, 2, 5, 22, 25', async () => {
    const $t = await t({ days: DAYS_PL }, 'pl');
    expect([1, 2, 5, 22, 25, 1.5].map((count) => $t('days', '', { count }))).toEqual(['1 dzień', '2 dni', '5 dni', '22 dni', '25 dni', '1,5 dnia']);
  });

  it('chooses English plural branches, =0 before the rules, tokens beside the plural', async () => {
    const $t = await t({ files: FILES_EN, where: '{count, plural, one {# file} other {# files}} in {folder}' }, 'en');
    expect([0, 1, 2, 1000].map((count) => $t('files', '', { count }))).toEqual(['No files', '1 file', '2 files', '1,000 files']);
    expect($t('where', '', { count: 2, folder: 'Inbox' })).toBe('2 files in Inbox');
    expect($t('where', '', { count: 1 })).toBe('1 file in {folder}');
  });

  it('supports =0 in Polish too', async () => {
    const $t = await t({ files: FILES_PL }, 'pl');
    expect([0, 1, 3, 5, 22].map((count) => $t('files', '', { count }))).toEqual(['Brak plików', '1 plik', '3 pliki', '5 plików', '22 pliki']);
  });

  it('plain text degrades to token and # substitution', async () => {
    const $t = await t({ days: '# dni do końca, {name}', order: 'Order #{id}', many: '# of {total}' }, 'pl');
    expect($t('days', '', { count: 5, name: 'Ala' })).toBe('5 dni do końca, Ala');
    expect($t('order', '', { id: 7 })).toBe('Order #7');
    expect($t('many', '', { total: 9, shown: 3 })).toBe('3 of 9');
    expect($t('days')).toBe('# dni do końca, {name}');
  });

  it('a value whose ICU does not parse is shown as plain text, never thrown', async () => {
    const $t = await t({ broken: '{count, plural, one {# plik} other {# plików}', typo: '{count, plurl, one {#} other {#}} {name}' }, 'pl');
    expect(() => $t('broken', '', { count: 2 })).not.toThrow();
    expect($t('broken', '', { count: 2 })).toBe('{count, plural, one {2 plik} other {2 plików}');
    expect($t('typo', '', { count: 1, name: 'x' })).toContain('x');
  });

  it('a plural without its value degrades to plain text instead of throwing', async () => {
    const $t = await t({ files: FILES_EN });
    expect($t('files')).toBe(FILES_EN);
  });

  it('caches compiled messages per locale and text: the same text formats per locale', () => {
    expect(formatMessage('pl', DAYS_PL, { count: 2 })).toBe('2 dni');
    expect(formatMessage('en', '{count, plural, one {# day} other {# days}}', { count: 2 })).toBe('2 days');
    expect(formatMessage('pl', DAYS_PL, { count: 1 })).toBe('1 dzień');
    expect(formatMessage('pt_BR', '{n, number}', { n: 1234.5 })).toBe('1.234,5');
  });
});
