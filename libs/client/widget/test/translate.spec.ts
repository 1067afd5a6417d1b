import { format, translator } from '../src/translate';

describe("widget's compact $t", () => {
  it('answers the catalog value, else the inline default, else the key', () => {
    const t = translator({ send: 'Wyślij' }, 'pl');
    expect(t('send', 'Send')).toBe('Wyślij');
    expect(t('clear', 'Clear chat')).toBe('Clear chat');
    expect(t('missing')).toBe('missing');
  });

  it('fills tokens from params and leaves unknown ones as they are', () => {
    expect(format('{count} of {max} ({other})', { count: 5, max: 10 })).toBe('5 of 10 ({other})');
  });

  it('chooses plural forms by the locale rules, with # and =N', () => {
    const msg = '{n, plural, =0 {no seconds} one {# second} few {# sekundy} many {# sekund} other {# seconds}}';
    expect(format(msg, { n: 0 }, 'en')).toBe('no seconds');
    expect(format(msg, { n: 1 }, 'en')).toBe('1 second');
    expect(format(msg, { n: 7 }, 'en')).toBe('7 seconds');
    expect(format(msg, { n: 3 }, 'pl')).toBe('3 sekundy');
    expect(format(msg, { n: 5 }, 'pl')).toBe('5 sekund');
    expect(format(msg, { n: 22 }, 'pl')).toBe('22 sekundy');
    expect(format('Wait {s, plural, one {# second} other {# seconds}}, {name}.', { s: 2, name: 'Ada' }, 'en')).toBe('Wait 2 seconds, Ada.');
  });

  it('falls back to English plural rules for a malformed locale', () => {
    expect(format('{n, plural, one {# item} other {# items}}', { n: 1 }, 'not a locale!')).toBe('1 item');
  });
});
