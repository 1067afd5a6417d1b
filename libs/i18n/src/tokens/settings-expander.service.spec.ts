import { type PublicSettingsSnapshot, PublicSettingsReader, type ServiceClient, Topics } from '@flowplane/contracts';
import { MemoryEventBus } from '@flowplane/platform/bus';
import { runWithLocale } from '@flowplane/platform/http';
import type { ServiceContext } from '@flowplane/platform/service';
import { type PublicSettingsSource, SettingsExpander } from './settings-expander.service';

function snapshotWith(name: string): PublicSettingsSnapshot {
  return {
    sourceLocale: 'en',
    settings: {
      site: {
        name: { localized: false, value: name },
        title: { localized: true, value: { en: 'Shop', pl: 'Sklep' } },
        motto: { localized: false, value: '{{.Name}} & [[ site.name ]]' },
      },
    },
  };
}

const ctx = (bus?: MemoryEventBus) => ({ name: 'i18n', config: {}, env: {}, serviceUrls: {}, bus }) as unknown as ServiceContext;

function fakeReader(snapshot: () => PublicSettingsSnapshot) {
  const reads = { count: 0 };
  const reader: PublicSettingsSource = {
    snapshot: async () => {
      reads.count++;
      return snapshot();
    },
  };
  return { reader, reads };
}

describe('SettingsExpander', () => {
  it('expands plain and HTML variants, localized settings in the request locale by default', async () => {
    const { reader } = fakeReader(() => snapshotWith('A&B'));
    const expander = new SettingsExpander(ctx(), undefined, reader);
    expect(await expander.plain('[[ site.name ]]: [[ site.title ]]', 'pl')).toBe('A&B: Sklep');
    expect(await expander.html('<i>[[ site.name ]]</i>', 'en')).toBe('<i>A&amp;B</i>');
    // The locale travels through the request context; '' (outside a request) is the source language.
    expect(await runWithLocale('pl-PL', () => expander.plain('[[ site.title ]]'))).toBe('Sklep');
    expect(await expander.plain('[[ site.title ]]')).toBe('Shop');
  });

  it('inserts a value holding {{ or a token as literal text', async () => {
    const { reader } = fakeReader(() => snapshotWith('Acme'));
    const expander = new SettingsExpander(ctx(), undefined, reader);
    expect(await expander.plain('[[ site.motto ]]', 'en')).toBe('{{.Name}} & [[ site.name ]]');
  });

  it('expands a whole catalog with one settings read and reads nothing for strings without tokens', async () => {
    const { reader, reads } = fakeReader(() => snapshotWith('Acme'));
    const expander = new SettingsExpander(ctx(), undefined, reader);
    expect(await expander.plain('no tokens', 'pl')).toBe('no tokens');
    expect(await expander.plainAll({ a: 'plain', b: 'Hello {{.Name}}' }, 'pl')).toEqual({ a: 'plain', b: 'Hello {{.Name}}' });
    expect(reads.count).toBe(0);
    const catalog = { title: '[[ site.title ]]', brand: '© [[ site.name ]]', typo: '[[ site.nmae ]]', keep: 'x' };
    expect(await expander.plainAll(catalog, 'pl')).toEqual({ title: 'Sklep', brand: '© Acme', typo: '[[ site.nmae ]]', keep: 'x' });
    expect(reads.count).toBe(1);
    expect(catalog.title).toBe('[[ site.title ]]'); // the input is not modified
  });

  it('leaves tokens verbatim without a reader and while the profiles service has never answered', async () => {
    expect(await new SettingsExpander(ctx(), undefined, null).plain('[[ site.name ]]', 'en')).toBe('[[ site.name ]]');
    const down: PublicSettingsSource = { snapshot: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    expect(await new SettingsExpander(ctx(), undefined, down).html('<b>[[ site.name ]]</b>', 'en')).toBe('<b>[[ site.name ]]</b>');
  });

  it('stays fresh: settings.updated on the bus drops the reader cache, so the next expansion sees the new value', async () => {
    const bus = MemoryEventBus.silent();
    let name = 'Old';
    let fetches = 0;
    const client = { get: async () => (fetches++, snapshotWith(name)) } as unknown as ServiceClient;
    const reader = new PublicSettingsReader(client, { ttlMs: 3_600_000, consumer: 'expander-spec' });
    const expander = new SettingsExpander(ctx(bus), undefined, reader);
    await expander.onModuleInit();
    try {
      expect(await expander.plain('[[ site.name ]]', 'en')).toBe('Old');
      name = 'New';
      expect(await expander.plain('[[ site.name ]]', 'en')).toBe('Old'); // cached
      await bus.publish(Topics.SettingsUpdated, { module: 'site', keys: ['name'] });
      const deadline = Date.now() + 2000;
      let seen = '';
      while (Date.now() < deadline && (seen = await expander.plain('[[ site.name ]]', 'en')) !== 'New') await new Promise((r) => setTimeout(r, 10));
      expect(seen).toBe('New');
      expect(fetches).toBe(2);
    } finally {
      await expander.onApplicationShutdown();
      await bus.close();
    }
  });
});
