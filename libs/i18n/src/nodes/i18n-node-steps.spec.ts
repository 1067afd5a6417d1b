import { resolveLocaleStep, type StepTranslator, translateStep } from './i18n-node-steps';

const catalog: Record<string, string> = { 'pl:|hello': 'Cześć {{.Name}}', 'en:|hello': 'Hello {{.Name}}', 'de:shop|cart': 'Warenkorb' };
const translator: StepTranslator = async (ns, key, locale, args) => {
  const raw = catalog[`${locale}:${ns}|${key}`] ?? key;
  return raw.replace(/\{\{\.(\w+)\}\}/g, (_, f: string) => String(args[f] ?? ''));
};

describe('i18n/translate step', () => {
  it('translates key, ns, locale and args from the packet onto Translated as {value, locale, key}', async () => {
    expect(await translateStep({ packet: { key: 'hello', locale: 'en', args: { Name: 'Ann' } } }, 'pl', translator)).toEqual({
      outputs: [{ port: 'Translated', packet: { value: 'Hello Ann', locale: 'en', key: 'hello' } }],
    });
    expect(await translateStep({ packet: { key: 'cart', ns: 'shop', locale: 'de' } }, 'pl', translator)).toEqual({
      outputs: [{ port: 'Translated', packet: { value: 'Warenkorb', locale: 'de', key: 'cart' } }],
    });
  });

  it('defaults the locale to the run meta.locale, then the default locale', async () => {
    const viaMeta = await translateStep({ packet: { key: 'hello', args: { Name: 'Jo' } }, meta: { locale: 'en' } }, 'pl', translator);
    expect(viaMeta.outputs[0].packet).toEqual({ value: 'Hello Jo', locale: 'en', key: 'hello' });
    const viaDefault = await translateStep({ packet: { key: 'hello', args: { Name: 'Jo' } }, meta: { locale: '<x>' } }, 'pl', translator);
    expect(viaDefault.outputs[0].packet).toEqual({ value: 'Cześć Jo', locale: 'pl', key: 'hello' });
  });

  it('answers the key itself on Translated when nothing translates it', async () => {
    expect((await translateStep({ packet: { key: 'no.such.key' } }, 'pl', translator)).outputs).toEqual([
      { port: 'Translated', packet: { value: 'no.such.key', locale: 'pl', key: 'no.such.key' } },
    ]);
  });

  it.each([[{}], [{ key: '' }], [{ key: 42 }], ['hello'], [null], [undefined]])('sends packet %j to Error: key is required', async (packet) => {
    const out = await translateStep({ packet }, 'pl', translator);
    expect(out.outputs).toHaveLength(1);
    expect(out.outputs[0].port).toBe('Error');
    expect((out.outputs[0].packet as { error: string }).error).toMatch(/needs a non-empty string `key`/);
  });

  it('sends fields of the wrong type to Error, naming them', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ key: 'k', ns: 3 }, /ns must be a string/],
      [{ key: 'k', locale: 'not a locale' }, /locale must be a locale/],
      [{ key: 'k', args: ['x'] }, /args must be an object/],
    ];
    for (const [packet, message] of cases) {
      const out = await translateStep({ packet }, 'pl', translator);
      expect(out.outputs[0]).toEqual({ port: 'Error', packet: { error: expect.stringMatching(message) } });
    }
  });
});

describe('i18n/resolve-locale step', () => {
  it('resolves meta.locale first, the packet locale only as a fallback, then the default', () => {
    expect(resolveLocaleStep({ packet: { locale: 'de' }, meta: { locale: 'uk' } }, 'pl').outputs).toEqual([{ port: 'Resolved', packet: { locale: 'uk' } }]);
    expect(resolveLocaleStep({ packet: { locale: 'de' }, meta: {} }, 'pl').outputs).toEqual([{ port: 'Resolved', packet: { locale: 'de' } }]);
    expect(resolveLocaleStep({ packet: {} }, 'pl').outputs).toEqual([{ port: 'Resolved', packet: { locale: 'pl' } }]);
    expect(resolveLocaleStep({ packet: { locale: '' } }, 'en').outputs).toEqual([{ port: 'Resolved', packet: { locale: 'en' } }]);
  });

  it('sends a malformed packet locale to Error', () => {
    expect(resolveLocaleStep({ packet: { locale: '../etc' } }, 'pl').outputs[0]).toEqual({ port: 'Error', packet: { error: expect.stringMatching(/locale must be a locale/) } });
  });
});
