import type { ServiceConfig } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import type { TranslationRepository } from '../persistence/translation.repository';
import { type CatalogTextExpander } from '../translation.service';
import { CachedTranslationService } from './cached-translation.service';
import type { WriteTranslationUseCase } from './write-translation.use-case';

/** A store of (ns, locale) → key → value with a counter of bucket loads; writes invalidate like the real writer. */
function setup(cells: Record<string, Record<string, string>>, opts: { enabled?: boolean; expander?: CatalogTextExpander } = {}) {
  const loads: string[] = [];
  const data = new Map(Object.entries(cells).map(([k, v]) => [k, new Map(Object.entries(v))]));
  let written: ((ns: string, locale: string) => void) | undefined;
  const repository = {
    bucket: async (ns: string, locale: string) => {
      loads.push(`${ns}/${locale}`);
      return new Map(data.get(`${ns}/${locale}`) ?? []);
    },
  } as unknown as TranslationRepository;
  const writer = { onWritten: (l: (ns: string, locale: string) => void) => (written = l) } as unknown as WriteTranslationUseCase;
  const config = new I18nConfig({ I18N_DEFAULT_LOCALE: 'pl', I18N_FALLBACK_LOCALE: 'en', ...(opts.enabled === false ? { I18N_STORE: 'none' } : {}) } as unknown as ServiceConfig);
  const service = new CachedTranslationService(config, repository, writer, undefined, opts.expander);
  const write = (ns: string, locale: string, key: string, value: string) => {
    const k = `${ns}/${locale}`;
    if (!data.has(k)) data.set(k, new Map());
    data.get(k)!.set(key, value);
    written!(ns, locale);
  };
  return { service, loads, write };
}

describe('CachedTranslationService.translateCached', () => {
  const cells = { '/en': { a: 'A en', b: 'B en', greet: 'Hi {{.Name}}' }, '/pl': { a: 'A pl' }, 'shop/en': { pay: 'Pay' } };

  it('answers undefined until the chain is loaded, then the same as translate without a promise', async () => {
    const { service, loads } = setup(cells);
    expect(service.translateCached('', 'a', 'pl-PL')).toBeUndefined();
    expect(await service.translate('', 'a', 'pl-PL')).toBe('A pl');
    expect(service.translateCached('', 'a', 'pl-PL')).toBe('A pl');
    expect(service.translateCached('', 'b', 'pl-PL')).toBe('B en');
    expect(service.translateCached('', 'missing', 'pl-PL')).toBe('missing');
    expect(service.translateCached('', 'greet', 'pl-PL', { Name: 'Ann' })).toBe('Hi Ann');
    const before = loads.length;
    for (let i = 0; i < 100; i++) service.translateCached('', 'a', 'pl-PL');
    expect(loads.length).toBe(before);
  });

  it('drops only the views whose chain holds a written bucket (rule 7)', async () => {
    const { service, loads, write } = setup(cells);
    await service.translate('', 'a', 'pl');
    await service.translate('shop', 'pay', 'en');
    write('', 'pl', 'a', 'A pl 2');
    // The pl bucket changed: the pl view is gone, the shop namespace stays cached.
    expect(service.translateCached('', 'a', 'pl')).toBeUndefined();
    expect(service.translateCached('shop', 'pay', 'en')).toBe('Pay');
    loads.length = 0;
    expect(await service.translate('', 'a', 'pl')).toBe('A pl 2');
    expect(loads).toEqual(['/pl']);
    expect(service.translateCached('', 'b', 'pl')).toBe('B en');
    // A write to the fallback reaches every view built over it.
    write('', 'en', 'b', 'B en 2');
    expect(service.translateCached('', 'b', 'pl')).toBeUndefined();
    expect(await service.translate('', 'b', 'pl')).toBe('B en 2');
    expect(service.translateCached('', 'b', 'pl')).toBe('B en 2');
    service.invalidateAll();
    expect(service.translateCached('', 'b', 'pl')).toBeUndefined();
  });

  it('leaves messages with settings tokens and a disabled service to the promise path', async () => {
    const expander: CatalogTextExpander = { expandPlain: async (t) => t.replace('[[ shop.name ]]', 'Acme'), onSettingsChanged: () => undefined };
    const { service } = setup({ '/en': { brand: 'Welcome to [[ shop.name ]]' }, '/pl': {} }, { expander });
    expect(await service.translate('', 'brand', 'pl')).toBe('Welcome to Acme');
    expect(service.translateCached('', 'brand', 'pl')).toBeUndefined();
    const disabled = setup(cells, { enabled: false }).service;
    expect(disabled.translateCached('', 'a', 'pl')).toBeUndefined();
    await expect(disabled.translate('', 'a', 'pl')).rejects.toMatchObject({ message: expect.stringMatching(/not configured/) });
  });
});
