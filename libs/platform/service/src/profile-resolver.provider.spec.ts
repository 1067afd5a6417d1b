import { Controller, Get, Module, Param } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProfileResolver, ServiceClient, Topics } from '@flowplane/contracts';
import { mintToken, Public, ServiceTokenProvider, TokenVerifier } from '@flowplane/platform/auth';
import { MemoryEventBus } from '@flowplane/platform/bus';
import { ProfileResolverModule } from './profile-resolver.provider';
import type { ServiceDefinition } from './service-definition';
import { type RunningService, startService } from './start-service';

const SECRET = 'profile-resolver-spec-secret-0123456789';

// The profiles service's internal route on a real HTTP server: it checks the service token like
// the real one would and answers from `profiles`.
let profilesServer: Server;
let profilesUrl: string;
let profiles: Map<string, Record<string, unknown>>;
let reads: string[];
const verifier = new TokenVerifier({ jwtSecret: SECRET });

beforeAll(async () => {
  profilesServer = createServer((req, res) => {
    void (async () => {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const principal = bearer ? await verifier.verify(bearer).catch(() => undefined) : undefined;
      if (!principal?.service) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"statusCode":401}');
        return;
      }
      reads.push(req.url ?? '');
      const m = /^\/internal\/profiles\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(req.url ?? '');
      const found = m && profiles.get(m.slice(1, 4).join('/'));
      res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(found ?? { statusCode: 404, error: 'Not Found', message: 'profile not found' }));
    })();
  });
  await new Promise<void>((resolve) => profilesServer.listen(0, '127.0.0.1', resolve));
  profilesUrl = `http://127.0.0.1:${(profilesServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  profilesServer.closeAllConnections();
  await new Promise<void>((resolve) => profilesServer.close(() => resolve()));
});

beforeEach(() => {
  profiles = new Map();
  reads = [];
  for (const id of ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']) setModel(id, 'v1');
});

function setModel(profileId: string, model: string): void {
  profiles.set(`llm/llm-chat/${profileId}`, {
    module: 'llm',
    kind: 'llm-chat',
    profileId,
    name: profileId,
    config: { providerID: 'local', model },
    updatedAt: new Date().toISOString(),
  });
}

function updated(profileId: string) {
  return { module: 'llm', kind: 'llm-chat', profileId, action: 'updated' as const };
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function resolverOn(bus: MemoryEventBus, hostname: string): ProfileResolver {
  const tokens = new ServiceTokenProvider('spec', SECRET);
  const client = new ServiceClient({ service: 'profiles', baseUrl: profilesUrl, tokenProvider: (target, perms) => tokens.token(target, perms) });
  return new ProfileResolver({ client, bus, hostname });
}

describe('ProfileResolver on the memory bus', () => {
  let bus: MemoryEventBus;
  beforeEach(() => {
    bus = MemoryEventBus.silent();
  });
  afterEach(() => bus.close());

  it('drops the written profile when profiles.updated arrives, so the next read sees the new value', async () => {
    const r = resolverOn(bus, 'host-a');
    await r.start();
    expect((await r.resolve('llm', 'llm-chat', 'p0')).config.model).toBe('v1');
    setModel('p0', 'v2');
    expect((await r.resolve('llm', 'llm-chat', 'p0')).config.model).toBe('v1');
    await bus.publish(Topics.ProfilesUpdated, updated('p0'), { key: 'llm/llm-chat/p0' });
    await eventually(() => r.resolveCached('llm', 'llm-chat', 'p0') === undefined);
    expect((await r.resolve('llm', 'llm-chat', 'p0')).config.model).toBe('v2');
    await r.stop();
  });

  it('fans out: replicas with different hostnames each drop their entry on one event', async () => {
    const a = resolverOn(bus, 'host-a');
    const b = resolverOn(bus, 'host-b');
    await Promise.all([a.start(), b.start()]);
    const groups = (await bus.stats()).consumers.map((c) => c.groupId).sort();
    expect(groups).toEqual(['profiles-invalidator-host-a', 'profiles-invalidator-host-b']);
    await a.resolve('llm', 'llm-chat', 'p0');
    await b.resolve('llm', 'llm-chat', 'p0');
    setModel('p0', 'v2');
    await bus.publish(Topics.ProfilesUpdated, updated('p0'), { key: 'llm/llm-chat/p0' });
    await eventually(
      () => a.resolveCached('llm', 'llm-chat', 'p0') === undefined && b.resolveCached('llm', 'llm-chat', 'p0') === undefined,
    );
    expect((await a.resolve('llm', 'llm-chat', 'p0')).config.model).toBe('v2');
    expect((await b.resolve('llm', 'llm-chat', 'p0')).config.model).toBe('v2');
    await Promise.all([a.stop(), b.stop()]);
  });

  it('lets resolvers of one process and hostname share the group, so neither misses the partitions of the other', async () => {
    // Standalone: every service in one process, one bus, one hostname. Two members of one group
    // would split the partitions and each would miss about half of the writes.
    const a = resolverOn(bus, 'same-host');
    const b = resolverOn(bus, 'same-host');
    await Promise.all([a.start(), b.start()]);
    const ids = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
    for (const r of [a, b]) for (const id of ids) await r.resolve('llm', 'llm-chat', id);
    for (const id of ids) await bus.publish(Topics.ProfilesUpdated, updated(id), { key: `llm/llm-chat/${id}` });
    await eventually(() => a.stats().entries === 0 && b.stats().entries === 0);
    expect(a.stats().invalidations).toBe(8);
    expect(b.stats().invalidations).toBe(8);

    // One leaving keeps the other subscribed; the last one leaves the group.
    await a.stop();
    await b.resolve('llm', 'llm-chat', 'p0');
    await bus.publish(Topics.ProfilesUpdated, updated('p0'), { key: 'llm/llm-chat/p0' });
    await eventually(() => b.stats().entries === 0);
    await b.stop();
    expect(b.stats().subscribed).toBe(false);
  });

  it('tells a deleted profile apart: the next resolve reports it not found', async () => {
    const r = resolverOn(bus, 'host-a');
    await r.start();
    await r.resolve('llm', 'llm-chat', 'p3');
    profiles.delete('llm/llm-chat/p3');
    await bus.publish(Topics.ProfilesUpdated, { ...updated('p3'), action: 'deleted' }, { key: 'llm/llm-chat/p3' });
    await eventually(() => r.resolveCached('llm', 'llm-chat', 'p3') === undefined);
    await expect(r.resolve('llm', 'llm-chat', 'p3')).rejects.toMatchObject({ name: 'ProfileNotFoundError', status: 404 });
    await r.stop();
  });
});

@Controller('resolved')
class ResolvedController {
  constructor(private readonly resolver: ProfileResolver) {}

  @Get(':id')
  @Public()
  async get(@Param('id') id: string) {
    const p = await this.resolver.resolve('llm', 'llm-chat', id);
    return { model: p.config.model };
  }
}

@Module({ imports: [ProfileResolverModule.forRoot()], controllers: [ResolvedController] })
class ConsumerModule {}

function consumer(name: string): ServiceDefinition {
  return { name, title: name, description: 'profile consumer', defaultPort: 0, uses: { bus: true }, module: () => ConsumerModule };
}

describe('ProfileResolverModule in a service', () => {
  let bus: MemoryEventBus;
  let services: RunningService[];
  const serviceUrls: Record<string, string> = {};

  beforeAll(async () => {
    serviceUrls.profiles = profilesUrl;
    bus = MemoryEventBus.silent();
    const env = { PORT: '0', AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'silent', HOSTNAME: 'one-box' };
    // Two services in one process on one bus with one hostname, as standalone runs them.
    services = [
      await startService(consumer('alpha'), { env, bus, serviceUrls }),
      await startService(consumer('beta'), { env, bus, serviceUrls }),
    ];
  });

  afterAll(async () => {
    for (const s of services ?? []) await s.close();
    await bus?.close();
  });

  it('resolves through the profiles client with a service token, and maps a missing profile to 404', async () => {
    const [alpha] = services;
    const ok = await fetch(`${alpha.url}/api/v1/resolved/p1`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ model: 'v1' });
    const missing = await fetch(`${alpha.url}/api/v1/resolved/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ statusCode: 404, message: 'profile not found: llm/llm-chat/nope' });
  });

  it('subscribes with a group per service and host, and invalidates the caches of both services on one write', async () => {
    // Per service: services in separate processes on one host (split mode on a laptop) sharing one
    // group would split the partitions between them, and each joining process would rebalance the rest.
    const groups = (await bus.stats()).consumers.filter((c) => c.topic === Topics.ProfilesUpdated).map((c) => c.groupId);
    expect(new Set(groups)).toEqual(new Set(['profiles-invalidator-alpha-one-box', 'profiles-invalidator-beta-one-box']));
    for (const s of services) await fetch(`${s.url}/api/v1/resolved/p2`);
    const before = reads.length;
    for (const s of services) expect(await (await fetch(`${s.url}/api/v1/resolved/p2`)).json()).toEqual({ model: 'v1' });
    expect(reads.length).toBe(before);

    setModel('p2', 'v2');
    await bus.publish(Topics.ProfilesUpdated, updated('p2'), { key: 'llm/llm-chat/p2' });
    for (const s of services) {
      await eventually(async () => ((await (await fetch(`${s.url}/api/v1/resolved/p2`)).json()) as { model: string }).model === 'v2');
    }
  });

  it('exports the cache counters on /metrics', async () => {
    const text = await (await fetch(`${services[0].url}/metrics`, { headers: { authorization: `Bearer ${await mintToken(SECRET, { sub: 'prometheus', perms: ['metrics:read'] })}` } })).text();
    expect(text).toMatch(/profile_resolver_cache\{stat="hits"[^}]*\} [1-9]/);
    expect(text).toMatch(/profile_resolver_cache\{stat="fetches"[^}]*\} [1-9]/);
    expect(text).toMatch(/profile_resolver_cache\{stat="invalidations"[^}]*\} [1-9]/);
  });

  it('answers 503 when the profiles service is down', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const urls = { profiles: `http://127.0.0.1:${port}` };
    const lonely = await startService(consumer('gamma'), { env: { PORT: '0', AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'silent' }, bus, serviceUrls: urls });
    try {
      const res = await fetch(`${lonely.url}/api/v1/resolved/p1`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await lonely.close();
    }
  }, 20000);
});
