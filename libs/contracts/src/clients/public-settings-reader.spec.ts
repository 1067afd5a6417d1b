import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient } from '../http/service-client';
import type { PublicSettingsSnapshot } from '../settings/setting-values';
import { Topics } from '../topics';
import { PUBLIC_SETTINGS_SNAPSHOT_PATH, PublicSettingsReader, type SettingsInvalidationBus } from './public-settings-reader';

// A real HTTP server on a loopback port standing in for the profiles service.
let server: Server;
let baseUrl: string;
let snapshot: PublicSettingsSnapshot;
let status: number;
let requests: Array<{ url: string; authorization?: string }>;
let delayMs: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const body = structuredClone(snapshot);
    const answer = () => (status === 200 ? json(res, 200, body) : json(res, status, { statusCode: status, error: 'Error', message: 'down' }));
    if (delayMs) setTimeout(answer, delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests = [];
  status = 200;
  delayMs = 0;
  snapshot = {
    sourceLocale: 'en',
    settings: {
      site: {
        name: { localized: true, value: { en: 'Acme', pl: 'Akme', de: '' } },
        support_email: { localized: false, value: 'help@acme.test' },
        launch_year: { localized: false, value: 2024 },
        beta: { localized: false, value: false },
        blank: { localized: false, value: '' },
      },
      shop: { motto: { localized: true, value: { fr: 'Bonjour' } } },
    },
  };
});

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function reader(options: ConstructorParameters<typeof PublicSettingsReader>[1] = {}, retries = 0): PublicSettingsReader {
  const client = new ServiceClient({ service: 'profiles', baseUrl, retries, retryBaseDelayMs: 1, tokenProvider: async () => 'svc-token' });
  return new PublicSettingsReader(client, options);
}

/** A bus double that records the subscription and lets the test deliver events. */
function fakeBus() {
  const subs: Array<{ topics: string[]; groupId: string; fromBeginning?: boolean; handler: (e: { data: unknown }) => Promise<void>; stopped: boolean }> = [];
  const bus: SettingsInvalidationBus = {
    async subscribe(topics, options, handler) {
      const sub = { topics, groupId: options.groupId, fromBeginning: options.fromBeginning, handler, stopped: false };
      subs.push(sub);
      return { stop: async () => void (sub.stopped = true) };
    },
  };
  return { bus, subs, deliver: (data: unknown) => Promise.all(subs.filter((s) => !s.stopped).map((s) => s.handler({ data }))) };
}

describe('PublicSettingsReader', () => {
  it('reads the internal snapshot route with the service token', async () => {
    const r = reader();
    await expect(r.get('site', 'support_email')).resolves.toBe('help@acme.test');
    expect(requests).toEqual([{ url: PUBLIC_SETTINGS_SNAPSHOT_PATH, authorization: 'Bearer svc-token' }]);
  });

  it('resolves localized values by the chain: requested, its base, source locale, any non-empty', async () => {
    const r = reader();
    await expect(r.get('site', 'name', 'pl')).resolves.toBe('Akme');
    await expect(r.get('site', 'name', 'pl-PL')).resolves.toBe('Akme');
    await expect(r.get('site', 'name', 'cs')).resolves.toBe('Acme');
    // An empty per-locale value never counts.
    await expect(r.get('site', 'name', 'de')).resolves.toBe('Acme');
    // No locale: the source language.
    await expect(r.get('site', 'name')).resolves.toBe('Acme');
    await expect(r.get('site', 'name', '')).resolves.toBe('Acme');
    // Neither the requested nor the source locale is set: any non-empty value.
    await expect(r.get('shop', 'motto', 'pl')).resolves.toBe('Bonjour');
  });

  it('renders non-string values as text', async () => {
    const r = reader();
    await expect(r.get('site', 'launch_year')).resolves.toBe('2024');
    await expect(r.get('site', 'beta')).resolves.toBe('false');
  });

  it('answers undefined for unknown modules and keys (private ones are absent from the snapshot) and empty values', async () => {
    const r = reader();
    await expect(r.get('site', 'api_key')).resolves.toBeUndefined();
    await expect(r.get('nope', 'name')).resolves.toBeUndefined();
    await expect(r.get('site', 'blank')).resolves.toBeUndefined();
    await expect(r.get('site', 'toString')).resolves.toBeUndefined();
    await expect(r.get('__proto__', 'name')).resolves.toBeUndefined();
  });

  it('caches the snapshot for the TTL, then fetches again', async () => {
    let now = 1_000;
    const r = reader({ ttlMs: 5_000, now: () => now });
    await r.get('site', 'support_email');
    await r.get('site', 'name', 'pl');
    expect(requests).toHaveLength(1);
    snapshot.settings.site.support_email = { localized: false, value: 'new@acme.test' };
    now += 4_999;
    await expect(r.get('site', 'support_email')).resolves.toBe('help@acme.test');
    now += 1;
    await expect(r.get('site', 'support_email')).resolves.toBe('new@acme.test');
    expect(requests).toHaveLength(2);
  });

  it('fetches on every read with ttlMs 0 and shares one fetch between concurrent readers', async () => {
    const r = reader({ ttlMs: 0 });
    await r.get('site', 'support_email');
    await r.get('site', 'support_email');
    expect(requests).toHaveLength(2);
    delayMs = 30;
    await Promise.all([r.get('site', 'name'), r.get('site', 'support_email'), r.get('shop', 'motto')]);
    expect(requests).toHaveLength(3);
  });

  it('drops the cache on settings.updated, subscribing with a per-replica group from the log end', async () => {
    const r = reader({ consumer: 'i18n' });
    const { bus, subs, deliver } = fakeBus();
    const sub = await r.listen(bus);
    expect(subs[0]).toMatchObject({ topics: [Topics.SettingsUpdated], fromBeginning: false });
    expect(subs[0].groupId).toMatch(/^settings-invalidator-i18n-.+/);

    await expect(r.get('site', 'name', 'pl')).resolves.toBe('Akme');
    snapshot.settings.site.name = { localized: true, value: { en: 'Acme', pl: 'Akme Sp.' } };
    await expect(r.get('site', 'name', 'pl')).resolves.toBe('Akme');
    await deliver({ module: 'site', keys: ['name'] });
    await expect(r.get('site', 'name', 'pl')).resolves.toBe('Akme Sp.');
    expect(requests).toHaveLength(2);

    await sub.stop();
    expect(subs[0].stopped).toBe(true);
  });

  it('does not let a fetch that started before an invalidation serve later reads', async () => {
    const r = reader();
    delayMs = 200;
    const early = r.get('site', 'support_email');
    // Wait until the server took the early request (it captures the snapshot on receipt), however loaded the machine is.
    while (requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 2));
    snapshot.settings.site.support_email = { localized: false, value: 'changed@acme.test' };
    r.invalidate();
    delayMs = 0;
    await expect(r.get('site', 'support_email')).resolves.toBe('changed@acme.test');
    await expect(early).resolves.toBe('help@acme.test');
    // The early answer did not repopulate the cache over the newer one.
    await expect(r.get('site', 'support_email')).resolves.toBe('changed@acme.test');
    expect(requests).toHaveLength(2);
  });

  it('keeps serving the last snapshot while the profiles service is unreachable, and fails without one', async () => {
    status = 503;
    const cold = reader({ ttlMs: 0 });
    await expect(cold.get('site', 'support_email')).rejects.toMatchObject({ name: 'ServiceCallError', status: 503 });

    status = 200;
    const warm = reader({ ttlMs: 0 });
    await expect(warm.get('site', 'support_email')).resolves.toBe('help@acme.test');
    status = 503;
    await expect(warm.get('site', 'support_email')).resolves.toBe('help@acme.test');
  });

  it('rejects a body that is not a snapshot', async () => {
    snapshot = { unexpected: true } as unknown as PublicSettingsSnapshot;
    await expect(reader().get('site', 'name')).rejects.toThrow(/unexpected public settings body/);
  });

  it('refuses a negative TTL', () => {
    expect(() => reader({ ttlMs: -1 })).toThrow(/ttlMs/);
  });
});
