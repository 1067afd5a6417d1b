import type { ServiceConfig } from '@flowplane/platform/service';
import { createMemoryStore, type StoreSession } from '@flowplane/platform/store';
import { fingerprint } from '../../coverage/fingerprint';
import { I18nConfig } from '../../i18n.config';
import type { I18nOutbox } from '../../translations/persistence/i18n.outbox';
import { TranslationRepository } from '../../translations/persistence/translation.repository';
import type { I18nInstance } from '../../translations/use-cases/instance-id';
import type { WriteTranslationUseCase } from '../../translations/use-cases/write-translation.use-case';
import { MachineTranslationWriter } from './machine-translation.writer';
import { NothingHeldException, PendingTranslationsUseCases } from './pending-translations.use-cases';

async function setup() {
  const store = createMemoryStore();
  const config = new I18nConfig({ I18N_DEFAULT_LOCALE: 'pl', I18N_FALLBACK_LOCALE: 'en' } as unknown as ServiceConfig);
  const repo = new TranslationRepository(store, config);
  const events: string[] = [];
  const outbox = {
    transaction: <R>(fn: (s: StoreSession) => Promise<R>) => store.withTransaction(fn),
    announceUpdated: async (_s: StoreSession, p: { locale: string }) => void events.push(`updated:${p.locale}`),
    announceKeysChanged: async () => void events.push('keys_changed'),
  } as unknown as I18nOutbox;
  const writer = new MachineTranslationWriter(repo, outbox, { id: 't' } as I18nInstance, { notify: () => undefined } as unknown as WriteTranslationUseCase);
  const useCases = new PendingTranslationsUseCases(repo, writer, config);
  const now = new Date();
  const at = now.toISOString();
  await repo.writeCells({ ns: '', key: 'pay' }, [{ locale: 'en', value: 'Pay', provenance: { source: 'code', at } }], now);
  await repo.setContext({ ns: '', key: 'pay' }, 'salary', now);
  const hold = (locale: string, text = `${locale}:Pay`) =>
    repo.setPending(
      { ns: '', key: 'pay' },
      locale,
      { text, status: 'held', by: 'fake/model', source_hash: fingerprint('Pay'), context_hash: fingerprint('salary'), review: { ok: false, reason: 'wrong sense', reviewer: 'fake/reviewer' }, at },
      now,
    );
  return { repo, useCases, hold, events };
}

describe('PendingTranslationsUseCases', () => {
  it('lists held and rejected entries beside the source and what readers see now (the fallback chain)', async () => {
    const t = await setup();
    await t.hold('de');
    await t.hold('pl-PL');
    await t.repo.writeCells({ ns: '', key: 'other' }, [{ locale: 'en', value: 'Other' }], new Date());
    const page = await t.useCases.list({});
    expect(page.nextCursor).toBeNull();
    expect(page.items).toEqual([
      {
        ns: '',
        key: 'pay',
        context: 'salary',
        source: { locale: 'en', text: 'Pay' },
        entries: {
          de: expect.objectContaining({ status: 'held', candidate: 'de:Pay', released: false, readersSee: { text: 'Pay', locale: 'en' } }),
          'pl-PL': expect.objectContaining({ status: 'held', candidate: 'pl-PL:Pay', readersSee: { text: 'Pay', locale: 'en' } }),
        },
      },
    ]);
    await t.repo.setContext({ ns: '', key: 'pay' }, 'wage', new Date());
    expect((await t.useCases.list({})).items[0].entries.de.released).toBe(true);
  });

  it('approve with the text unchanged: live machine text marked approved; with edited text: live human text; the entry is cleared', async () => {
    const t = await setup();
    await t.hold('de');
    await t.hold('fr');
    const row = await t.useCases.approve({ key: 'pay', locale: 'de' }, 'alice');
    expect(row.translations.de).toBe('de:Pay');
    expect(row.provenance.de).toMatchObject({ source: 'machine', by: 'fake/model', source_hash: fingerprint('Pay'), review: { approved: true, by: 'alice', reason: 'wrong sense' } });
    expect(row.pending.de).toBeUndefined();
    const edited = await t.useCases.approve({ key: 'pay', locale: 'fr', text: 'Salaire' }, 'alice');
    expect(edited.translations.fr).toBe('Salaire');
    expect(edited.provenance.fr).toMatchObject({ source: 'human', by: 'alice' });
    expect(edited.pending).toEqual({});
    expect(t.events).toEqual(['updated:de', 'updated:fr']);
  });

  it('reject keeps the candidate out as rejected; approve or reject with nothing held is a 404', async () => {
    const t = await setup();
    await t.hold('de');
    const row = await t.useCases.reject({ key: 'pay', locale: 'de', reason: 'means salary' }, 'bob');
    expect(row.pending.de).toMatchObject({ status: 'rejected', text: 'de:Pay', review: { rejected: { by: 'bob', reason: 'means salary' } } });
    expect(row.translations.de).toBeUndefined();
    await expect(t.useCases.approve({ key: 'pay', locale: 'de' })).rejects.toMatchObject({ status: 404, code: 'I18N_NOTHING_HELD' });
    await expect(t.useCases.reject({ key: 'pay', locale: 'de' })).rejects.toBeInstanceOf(NothingHeldException);
    await expect(t.useCases.approve({ key: 'pay', locale: 'fr' })).rejects.toBeInstanceOf(NothingHeldException);
    await expect(t.useCases.approve({ key: 'nope', locale: 'de' })).rejects.toBeInstanceOf(NothingHeldException);
  });
});
