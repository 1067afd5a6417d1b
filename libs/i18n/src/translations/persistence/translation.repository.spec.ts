import { createMemoryStore } from '@flowplane/platform/store';
import type { ServiceConfig } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import { TranslationRepository } from './translation.repository';

function repository(): TranslationRepository {
  const config = new I18nConfig({ I18N_DEFAULT_LOCALE: 'en' } as unknown as ServiceConfig);
  return new TranslationRepository(createMemoryStore(), config);
}

const row = (key: string, en: string) => ({ key, translations: { en }, provenance: { en: { source: 'code' as const, by: 'seed:t', at: '2026-01-01T00:00:00.000Z' } }, modules: ['t'] });

describe('TranslationRepository.insertAllAbsent', () => {
  it('inserts only the keys that do not exist, leaving existing rows exactly as they are', async () => {
    const repo = repository();
    await repo.ensureIndexes();
    await repo.insertIfAbsent({ ns: 't', key: 'a' }, { ...row('a', 'curated'), provenance: { en: { source: 'human', by: 'olga', at: '2026-01-01T00:00:00.000Z' } } }, new Date());
    const created = await repo.insertAllAbsent('t', [row('a', 'code A'), row('b', 'code B'), row('c', 'code C')], new Date());
    expect(created).toEqual(['b', 'c']);
    const rows = await repo.findMany('t', ['a', 'b', 'c']);
    expect([...rows.values()].map((r) => [r.key, r.translations.en])).toEqual([
      ['a', 'curated'],
      ['b', 'code B'],
      ['c', 'code C'],
    ]);
    expect(await repo.insertAllAbsent('t', [row('a', 'x'), row('b', 'y')], new Date())).toEqual([]);
  });

  it('lets two seeders race: every key is inserted once, and each says only what it inserted', async () => {
    const repo = repository();
    await repo.ensureIndexes();
    const rows = ['k1', 'k2', 'k3', 'k4'].map((k) => row(k, `text ${k}`));
    const [first, second] = await Promise.all([
      repo.insertAllAbsent('t', rows, new Date(1_000)),
      repo.insertAllAbsent('t', rows, new Date(2_000)),
    ]);
    expect([...first, ...second].sort()).toEqual(['k1', 'k2', 'k3', 'k4']);
    expect((await repo.findMany('t', ['k1', 'k2', 'k3', 'k4'])).size).toBe(4);
  });
});
