import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient } from '../http/service-client';
import { ServiceCallError } from '../http/service-client.errors';
import { Topics } from '../topics';
import {
  InvalidProfileResponseError,
  type ProfileInvalidationBus,
  ProfileNotFoundError,
  ProfileResolver,
  type ProfileResolverOptions,
  ProfilesUnavailableError,
} from './profile-resolver';

// A real HTTP server plays the profiles service: it answers the internal route from `profiles`,
// counts what arrived, and each test may delay or override answers.
interface StoredProfile {
  module: string;
  kind: string;
  profileId: string;
  name: string;
  config: Record<string, unknown>;
  updatedAt: string;
}

let server: Server;
let baseUrl: string;
let profiles: Map<string, StoredProfile>;
let requests: Array<{ url: string; authorization?: string }>;
let delayMs: number;
let override: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;

const ROUTE = /^\/internal\/profiles\/([^/]+)\/([^/]+)\/([^/]+)$/;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
    // Read on arrival, answer after the delay: a slow answer carries the value of when it was read.
    const m = ROUTE.exec(req.url ?? '');
    const found = m && profiles.get(m.slice(1, 4).map(decodeURIComponent).join('/'));
    const snapshot = found ? JSON.parse(JSON.stringify(found)) : undefined;
    setTimeout(() => {
      if (override?.(req, res)) return;
      if (!snapshot) return json(res, 404, { statusCode: 404, error: 'Not Found', message: 'profile not found' });
      json(res, 200, snapshot);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  profiles = new Map();
  requests = [];
  delayMs = 0;
  override = undefined;
  put('llm', 'llm-chat', 'default', { providerID: 'local', apiKey: 'sk-secret', temperature: 0.2 });
});

function put(module: string, kind: string, profileId: string, config: Record<string, unknown>): void {
  profiles.set(`${module}/${kind}/${profileId}`, {
    module,
    kind,
    profileId,
    name: profileId,
    config,
    updatedAt: new Date().toISOString(),
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function client(url = baseUrl): ServiceClient {
  return new ServiceClient({
    service: 'profiles',
    baseUrl: url,
    retries: 1,
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 10,
    timeoutMs: 2000,
    tokenProvider: async () => 'svc-token',
  });
}

function resolver(extra: Partial<ProfileResolverOptions> = {}): ProfileResolver {
  return new ProfileResolver({ client: client(), hostname: 'test-host', ...extra });
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

/** Records subscriptions and lets a test deliver events, as the bus port would. */
class RecordingBus implements ProfileInvalidationBus {
  readonly subscriptions: Array<{
    topics: string[];
    groupId: string;
    fromBeginning?: boolean;
    handler: (event: { data: unknown }) => Promise<void>;
    stopped: boolean;
  }> = [];

  async subscribe(
    topics: string[],
    options: { groupId: string; fromBeginning?: boolean },
    handler: (event: { data: unknown }) => Promise<void>,
  ): Promise<{ stop(): Promise<void> }> {
    const sub = { topics, ...options, handler, stopped: false };
    this.subscriptions.push(sub);
    return { stop: async () => void (sub.stopped = true) };
  }

  async deliver(data: unknown): Promise<void> {
    for (const s of this.subscriptions) if (!s.stopped) await s.handler({ data });
  }
}

describe('ProfileResolver cache', () => {
  it('reads the profile unmasked from the internal route with the service token, then answers from the cache', async () => {
    const r = resolver();
    const first = await r.resolve('llm', 'llm-chat', 'default');
    expect(first).toMatchObject({
      module: 'llm',
      kind: 'llm-chat',
      profileId: 'default',
      config: { providerID: 'local', apiKey: 'sk-secret', temperature: 0.2 },
    });
    expect(requests).toEqual([{ url: '/internal/profiles/llm/llm-chat/default', authorization: 'Bearer svc-token' }]);

    // The service now holds another value, but nothing announced it: the cache answers.
    put('llm', 'llm-chat', 'default', { providerID: 'changed' });
    const again = await r.resolve('llm', 'llm-chat', 'default');
    expect(again).toBe(first);
    expect(r.resolveCached('llm', 'llm-chat', 'default')).toBe(first);
    expect(requests).toHaveLength(1);
    expect(r.stats()).toMatchObject({ hits: 2, misses: 1, fetches: 1, entries: 1, subscribed: false });
  });

  it('keeps entries apart per (module, kind, id) and encodes each path segment', async () => {
    put('llm', 'llm-chat', 'a/b c', { providerID: 'slash' });
    put('other', 'llm-chat', 'default', { providerID: 'other-module' });
    const r = resolver();
    expect((await r.resolve('llm', 'llm-chat', 'a/b c')).config.providerID).toBe('slash');
    expect((await r.resolve('other', 'llm-chat', 'default')).config.providerID).toBe('other-module');
    expect((await r.resolve('llm', 'llm-chat', 'default')).config.providerID).toBe('local');
    expect(requests.map((q) => q.url)).toContain('/internal/profiles/llm/llm-chat/a%2Fb%20c');
    expect(r.stats().entries).toBe(3);
  });

  it('answers resolveCached synchronously only for cached profiles', async () => {
    const r = resolver();
    expect(r.resolveCached('llm', 'llm-chat', 'default')).toBeUndefined();
    expect(requests).toHaveLength(0);
    await r.resolve('llm', 'llm-chat', 'default');
    expect(r.resolveCached('llm', 'llm-chat', 'default')?.config.providerID).toBe('local');
  });

  it('hands out a frozen profile so one caller cannot change what the others see', async () => {
    const r = resolver();
    const p = await r.resolve('llm', 'llm-chat', 'default');
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p.config)).toBe(true);
    expect(() => {
      (p.config as Record<string, unknown>).temperature = 1;
    }).toThrow(TypeError);
  });

  it('shares one read between concurrent misses of the same key', async () => {
    delayMs = 100;
    put('llm', 'llm-chat', 'other', { providerID: 'x' });
    const r = resolver();
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => r.resolve('llm', 'llm-chat', 'default')),
      r.resolve('llm', 'llm-chat', 'other'),
    ]);
    expect(requests.map((q) => q.url).sort()).toEqual([
      '/internal/profiles/llm/llm-chat/default',
      '/internal/profiles/llm/llm-chat/other',
    ]);
    expect(new Set(results.slice(0, 20)).size).toBe(1);
    expect(r.stats()).toMatchObject({ misses: 21, fetches: 2, hits: 0 });
  });

  it('re-reads after invalidate() and keeps the other entries', async () => {
    put('llm', 'llm-chat', 'other', { providerID: 'x' });
    const r = resolver();
    await r.resolve('llm', 'llm-chat', 'default');
    await r.resolve('llm', 'llm-chat', 'other');
    put('llm', 'llm-chat', 'default', { providerID: 'v2' });
    r.invalidate('llm', 'llm-chat', 'default');
    expect((await r.resolve('llm', 'llm-chat', 'default')).config.providerID).toBe('v2');
    await r.resolve('llm', 'llm-chat', 'other');
    expect(requests).toHaveLength(3);
    r.invalidateAll();
    expect(r.stats()).toMatchObject({ entries: 0, invalidations: 2 });
  });

  it('does not cache a read that an invalidation overtook, and starts a fresh read for later callers', async () => {
    delayMs = 150;
    const r = resolver();
    const early = r.resolve('llm', 'llm-chat', 'default');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The write lands while the read is on the wire; its answer may predate the write.
    put('llm', 'llm-chat', 'default', { providerID: 'v2' });
    r.invalidate('llm', 'llm-chat', 'default');
    const late = r.resolve('llm', 'llm-chat', 'default');
    expect((await early).config.providerID).toBe('local');
    // The overtaken read answered its caller but left nothing in the cache (the fresh read is still on the wire).
    expect(r.resolveCached('llm', 'llm-chat', 'default')).toBeUndefined();
    expect((await late).config.providerID).toBe('v2');
    expect(r.resolveCached('llm', 'llm-chat', 'default')?.config.providerID).toBe('v2');
    expect(requests).toHaveLength(2);
  });

  it('re-reads an entry older than ttlMs', async () => {
    let now = 1_000;
    const r = resolver({ ttlMs: 500, now: () => now });
    await r.resolve('llm', 'llm-chat', 'default');
    now += 499;
    await r.resolve('llm', 'llm-chat', 'default');
    expect(requests).toHaveLength(1);
    put('llm', 'llm-chat', 'default', { providerID: 'v2' });
    now += 1;
    expect(r.resolveCached('llm', 'llm-chat', 'default')).toBeUndefined();
    expect((await r.resolve('llm', 'llm-chat', 'default')).config.providerID).toBe('v2');
    expect(requests).toHaveLength(2);
  });

  it('rejects a bad ttlMs and an empty hostname', () => {
    expect(() => resolver({ ttlMs: 0 })).toThrow('ttlMs');
    expect(() => resolver({ hostname: '' })).toThrow('hostname');
  });
});

describe('ProfileResolver errors', () => {
  it('reports a missing profile as ProfileNotFoundError (404) and asks again next time without a subscription', async () => {
    const r = resolver();
    const e = await caught(r.resolve('llm', 'llm-chat', 'deleted'));
    expect(e).toBeInstanceOf(ProfileNotFoundError);
    expect(e).toMatchObject({ status: 404, code: 'PROFILE_NOT_FOUND', module: 'llm', kind: 'llm-chat', profileId: 'deleted' });
    expect((e as Error).message).toBe('profile not found: llm/llm-chat/deleted');
    // Created meanwhile: with no bus to announce it, a cached miss would hide it forever.
    put('llm', 'llm-chat', 'deleted', { providerID: 'back' });
    expect((await r.resolve('llm', 'llm-chat', 'deleted')).config.providerID).toBe('back');
    expect(requests).toHaveLength(2);
  });

  it('reports an unreachable profiles service as ProfilesUnavailableError (503)', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const r = new ProfileResolver({ client: client(`http://127.0.0.1:${port}`), hostname: 'h' });
    const e = await caught(r.resolve('llm', 'llm-chat', 'default'));
    expect(e).toBeInstanceOf(ProfilesUnavailableError);
    expect(e).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', profileId: 'default' });
    expect(r.stats().entries).toBe(0);
  });

  it('reports a 5xx answer (after the client retries) as ProfilesUnavailableError and caches nothing', async () => {
    override = (_req, res) => (json(res, 503, { statusCode: 503, error: 'Service Unavailable', message: 'store down' }), true);
    const r = resolver();
    expect(await caught(r.resolve('llm', 'llm-chat', 'default'))).toBeInstanceOf(ProfilesUnavailableError);
    expect(requests).toHaveLength(2);
    override = undefined;
    expect((await r.resolve('llm', 'llm-chat', 'default')).config.providerID).toBe('local');
  });

  it('passes a refused service token through as the ServiceCallError it is', async () => {
    override = (_req, res) => (json(res, 403, { statusCode: 403, error: 'Forbidden', message: 'internal only' }), true);
    const e = await caught(resolver().resolve('llm', 'llm-chat', 'default'));
    expect(e).toBeInstanceOf(ServiceCallError);
    expect(e).not.toBeInstanceOf(ProfilesUnavailableError);
    expect((e as ServiceCallError).status).toBe(403);
  });

  it('refuses an answer that is not the asked profile', async () => {
    override = (_req, res) => (json(res, 200, { module: 'llm', kind: 'llm-chat', profileId: 'someone-else', config: {} }), true);
    expect(await caught(resolver().resolve('llm', 'llm-chat', 'default'))).toBeInstanceOf(InvalidProfileResponseError);
    override = (_req, res) => (json(res, 200, { module: 'llm', kind: 'llm-chat', profileId: 'default' }), true);
    expect(await caught(resolver().resolve('llm', 'llm-chat', 'default'))).toBeInstanceOf(InvalidProfileResponseError);
  });
});

describe('ProfileResolver invalidation subscription', () => {
  it('joins profiles-invalidator-<hostname> on profiles.updated from the log end, once', async () => {
    const bus = new RecordingBus();
    const r = resolver({ bus, hostname: 'worker-7' });
    expect(r.groupId).toBe('profiles-invalidator-worker-7');
    await Promise.all([r.start(), r.start()]);
    await r.start();
    expect(bus.subscriptions).toHaveLength(1);
    expect(bus.subscriptions[0]).toMatchObject({
      topics: [Topics.ProfilesUpdated],
      groupId: 'profiles-invalidator-worker-7',
      fromBeginning: false,
    });
    expect(r.stats().subscribed).toBe(true);
    await r.stop();
    expect(bus.subscriptions[0].stopped).toBe(true);
    expect(r.stats().subscribed).toBe(false);
  });

  it('with a bus, caches only while subscribed, and empties the cache on start and stop', async () => {
    const bus = new RecordingBus();
    const r = resolver({ bus });
    await r.resolve('llm', 'llm-chat', 'default');
    await r.resolve('llm', 'llm-chat', 'default');
    expect(requests).toHaveLength(2);
    await r.start();
    await r.resolve('llm', 'llm-chat', 'default');
    await r.resolve('llm', 'llm-chat', 'default');
    expect(requests).toHaveLength(3);
    await r.stop();
    expect(r.stats().entries).toBe(0);
  });

  it('drops the announced entry on an event and everything on a payload it cannot read', async () => {
    put('llm', 'llm-chat', 'other', { providerID: 'x' });
    const bus = new RecordingBus();
    const r = resolver({ bus });
    await r.start();
    await r.resolve('llm', 'llm-chat', 'default');
    await r.resolve('llm', 'llm-chat', 'other');
    await bus.deliver({ module: 'llm', kind: 'llm-chat', profileId: 'default', action: 'updated' });
    expect(r.resolveCached('llm', 'llm-chat', 'default')).toBeUndefined();
    expect(r.resolveCached('llm', 'llm-chat', 'other')).toBeDefined();
    await bus.deliver({ something: 'else' });
    expect(r.stats()).toMatchObject({ entries: 0, invalidations: 2 });
  });

  it('caches a miss while subscribed until the created event of that id', async () => {
    const bus = new RecordingBus();
    const r = resolver({ bus });
    await r.start();
    expect(await caught(r.resolve('llm', 'llm-chat', 'new'))).toBeInstanceOf(ProfileNotFoundError);
    expect(await caught(r.resolve('llm', 'llm-chat', 'new'))).toBeInstanceOf(ProfileNotFoundError);
    expect(requests).toHaveLength(1);
    expect(r.resolveCached('llm', 'llm-chat', 'new')).toBeUndefined();
    put('llm', 'llm-chat', 'new', { providerID: 'fresh' });
    await bus.deliver({ module: 'llm', kind: 'llm-chat', profileId: 'new', action: 'created' });
    expect((await r.resolve('llm', 'llm-chat', 'new')).config.providerID).toBe('fresh');
  });

  it('fails start() when the bus refuses the subscription, and can start later', async () => {
    let refuse = true;
    const inner = new RecordingBus();
    const bus: ProfileInvalidationBus = {
      subscribe: (topics, options, handler) =>
        refuse ? Promise.reject(new Error('broker down')) : inner.subscribe(topics, options, handler),
    };
    const r = resolver({ bus });
    await expect(r.start()).rejects.toThrow('broker down');
    expect(r.stats().subscribed).toBe(false);
    refuse = false;
    await r.start();
    expect(r.stats().subscribed).toBe(true);
  });
});
