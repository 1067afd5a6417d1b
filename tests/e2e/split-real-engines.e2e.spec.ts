import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { Topics } from '@flowplane/contracts';
import { KafkaEventBus } from '@flowplane/platform/bus';
import { describeIntegration, freePort, hasCommand, hasFile, itIntegration, portAnswers, waitUntil } from '@flowplane/platform/testing';
import type { SplitPlatform } from '../../tools/split/split';
import { greeterFlow, publishFlow } from '../support/flows';
import { call, json, metricsAuth, parseSse, TEST_SECRET, token, until } from '../support/http';
import { HubClient } from './hub-clients';
import { realEngines, type SplitOnEngines, startSplitOnEngines } from '../support/split-engines';

/**
 * Split mode on the production engines: every service its own process on Apache Kafka, each with
 * its own database on a MongoDB wire-protocol server (FerretDB here; a MongoDB replica set where
 * testcontainers can start one), two flow-runtime replicas sharing theirs. The paths that cross
 * processes: a route deployment dispatched, an event-source flow run once per event across both
 * replicas, `profiles.updated` reaching both replicas' profile caches, a handoff consumed by a
 * subscriber flow, a reported key translated by the on-change flow, a chat answered through the
 * assistant, a page change reaching page search, and a broadcast reaching a client of the second hub
 * replica over the NATS bridge (where nats-server is installed). Names carry a run id, so a
 * long-lived broker and server (`npm run engines:up`) can hold earlier runs.
 */
const silent = { warn: () => undefined, error: () => undefined };
const RUN = `r${Date.now().toString(36)}`;

interface Sink {
  url: string;
  port: string;
  hits: Array<{ path: string; body: unknown }>;
  close(): Promise<void>;
}

async function sink(): Promise<Sink> {
  const hits: Sink['hits'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      hits.push({ path: req.url ?? '', body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = String((server.address() as AddressInfo).port);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** start (maybe an event source) → POST to the sink under `path` (placeholders over the input) → end. */
const postingFlow = (name: string, sinkUrl: string, path: string, start: Record<string, unknown> = {}) => ({
  name,
  nodes: [
    { id: 'start', name: 'Start', kind: 'start', ...start },
    { id: 'post', name: 'Post', kind: 'action', action_ref: 'svc/http-request', config: { method: 'POST', url: `${sinkUrl}${path}`, bodyFrom: '', timeoutMs: 5000 } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'post' },
    { id: 'e2', from: 'post', to: 'end', port: 'out' },
  ],
});

/** nats-server, for the hub's cross-replica bridge (the bus is Kafka; the bridge is COORD's). */
const natsBin = hasFile('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : hasCommand('nats-server') ? 'nats-server' : undefined;

async function startNats(): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(natsBin!, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  await waitUntil('nats-server', () => portAnswers(port), { timeoutMs: 10_000, intervalMs: 50, failed: () => (proc.exitCode !== null ? `exited with ${proc.exitCode}` : undefined) });
  return { url: `nats://127.0.0.1:${port}`, proc };
}

const engines = realEngines();
describeIntegration(`split mode on ${engines.label}`, engines.unavailable, { requiredInCi: true }, () => {
  let split: SplitOnEngines;
  let platform: SplitPlatform;
  let mongoUrl: string;
  let target: Sink;
  let bus: KafkaEventBus;
  let admin: string;
  let api: string;
  let replicas: string[];
  let nats: { url: string; proc: ChildProcess } | undefined;
  const clients: HubClient[] = [];

  const publish = (base: string, flowId: string, doc: unknown) => publishFlow(base, admin, flowId, doc);
  const subscriptions = async (flowId: string) =>
    (
      await Promise.all(
        replicas.map(async (b) => ((await call(`${b}/flows/${flowId}/subscriptions`, { bearer: admin })).body ?? []) as Array<{ state: string; processed: number }>),
      )
    ).flat();

  beforeAll(async () => {
    target = await sink();
    if (natsBin) nats = await startNats();
    split = await startSplitOnEngines(engines, 'split_real', {
      basePort: 19680,
      replicas: { 'flow-runtime': 2, ...(nats ? { hub: 2 } : {}) },
      env: {
        ...(nats ? { COORD: 'nats', NATS_URL: nats.url, HUB_COORD_RECONNECT_MS: '100' } : {}),
        ASSISTANT_RATE_LIMIT: '1000',
        AUTH_JWT_SECRET: TEST_SECRET,
        LOG_LEVEL: 'warn',
        GATEWAY_RATE_LIMIT: '0',
        FLOW_HTTP_ALLOW_PRIVATE: 'true',
        KAFKA_MAX_WAIT_MS: '100',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        KAFKA_HEARTBEAT_INTERVAL_MS: '500',
        // One broker here; the platform's default is min(3, brokers) anyway.
        KAFKA_TOPIC_PARTITIONS: '4',
      },
    });
    ({ platform, mongoUrl } = split);
    admin = await token('split-real-admin', ['admin:access', 'profiles:*'], { superuser: true });
    api = `${platform.gatewayUrl}/api/v1`;
    replicas = platform.replicaUrls['flow-runtime'].map((r) => `${r}/api/v1`);
    bus = new KafkaEventBus({ brokers: split.brokers, clientId: 'split-real', logLevel: logLevel.NOTHING, logger: silent, topics: { partitions: 4 } });
  }, 300_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    await bus?.close();
    await split?.stop();
    await target?.close();
    nats?.proc.kill('SIGKILL');
  }, 120_000);

  it('runs every service ready on Kafka, each keeping its documents in its own database', async () => {
    const health = await call(`${platform.gatewayUrl}/api/v1/health`);
    expect(health.status).toBe(200);
    for (const [key, url] of Object.entries(platform.urls)) {
      const ready = await call(`${url}/readyz`);
      expect({ key, status: ready.status }).toEqual({ key, status: 200 });
    }
    const client = await MongoClient.connect(mongoUrl);
    try {
      const names = (await client.db().admin().listDatabases()).databases.map((d) => d.name);
      // Every service with a store wrote there (seeding, outboxes), none into another's database.
      for (const service of ['flow-runtime', 'deployments', 'profiles', 'assistant', 'i18n']) {
        expect(names).toContain(split.serviceDatabase(service));
      }
    } finally {
      await client.close();
    }
  });

  it('shares one store between the flow-runtime replicas: a flow saved through one is run by the other', async () => {
    await publish(replicas[0], `shared-${RUN}`, postingFlow('Shared', target.url, `/shared/${RUN}/{{ input.from }}`));
    const run = await call(`${replicas[1]}/flows/shared-${RUN}/runs`, { method: 'POST', bearer: admin, ...json({ input: { from: 'replica-2' } }) });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed' });
    expect(target.hits.filter((h) => h.path.startsWith(`/shared/${RUN}/`)).map((h) => h.path)).toEqual([`/shared/${RUN}/replica-2`]);
  }, 60_000);

  it('dispatches a route deployment across processes: deployments → Kafka → flow-runtime → gateway', async () => {
    const greeter = greeterFlow(`/real-hello-${RUN}/{name}`);
    await publish(api, `greeter-${RUN}`, greeter);
    const created = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ id: `hello-${RUN}`, name: 'Hello', kind: 'route', auth: { mode: 'public' }, variants: [{ label: 'stable', flowId: `greeter-${RUN}`, weight: 1 }] }) });
    expect(created.status).toBe(201);
    const hello = await until(() => call(`${api}/real-hello-${RUN}/ada`), (r) => r.status === 200, 30_000);
    expect(hello.body).toMatchObject({ text: 'hello ada' });
  }, 90_000);

  it('runs an event-source flow once per event across both replicas (one consumer group)', async () => {
    const topic = `orders.${RUN}`;
    await publish(replicas[0], `orders-${RUN}`, postingFlow('Orders', target.url, `/orders/${RUN}/{{ input.id }}`, { action_ref: 'svc/event-source', config: { eventName: topic, groupID: `orders-${RUN}` } }));
    const active = await until(() => subscriptions(`orders-${RUN}`), (s) => s.length === 2 && s.every((x) => x.state === 'active'), 60_000, 250);
    expect(active.map((s) => s.state)).toEqual(['active', 'active']);
    const ids = Array.from({ length: 40 }, (_, i) => `o${i}`);
    for (const id of ids) await bus.publish(topic, { id }, { key: id });
    const mine = () => target.hits.filter((h) => h.path.startsWith(`/orders/${RUN}/`)).map((h) => h.path.split('/').pop()!);
    await until(async () => new Set(mine()).size, (n) => n === ids.length, 60_000, 100);
    await new Promise((r) => setTimeout(r, 1000));
    expect(mine().sort()).toEqual([...ids].sort());

    // The admin view reads the group's committed offsets from Kafka: nothing left to process.
    const groupOf = async () => {
      const system = await call(`${api}/admin/system`, { bearer: admin });
      const services = system.body.services as Array<{ service: string; consumers?: Array<{ groupId: string; topic: string; lag: number; partitions: unknown[] }> }>;
      return services.flatMap((s) => (s.consumers ?? []).map((c) => ({ service: s.service, ...c }))).find((c) => c.groupId === `orders-${RUN}`);
    };
    const group = await until(groupOf, (g) => g?.lag === 0, 15_000, 250);
    expect(group).toMatchObject({ service: 'flow-runtime', topic, lag: 0, partitions: expect.arrayContaining([expect.objectContaining({ committed: expect.any(Number) })]) });
  }, 120_000);

  it('consumes a handoff in a subscriber flow, and the profile update reaches both flow-runtime replicas', async () => {
    await publish(replicas[0], `on-handoff-${RUN}`, postingFlow('On handoff', target.url, `/handoff/${RUN}/{{ input.handoffId }}/{{ input.sessionId }}`, { action_ref: 'svc/event-source', config: { eventName: Topics.AssistantHandoffRequested, groupID: `handoff-${RUN}` } }));
    await until(() => subscriptions(`on-handoff-${RUN}`), (s) => s.length === 2 && s.every((x) => x.state === 'active'), 60_000, 250);
    const filed = await call(`${api}/assistant/handoff`, { method: 'POST', ...json({ sessionId: `split-real-${RUN}`, email: 'ada@example.com', reason: 'split on real engines' }) });
    expect(filed.status).toBe(201);
    const handoffs = await until(
      async () => target.hits.filter((h) => h.path.startsWith(`/handoff/${RUN}/`)),
      (h) => h.length >= 1,
      30_000,
      100,
    );
    expect(handoffs.map((h) => h.path)).toEqual([`/handoff/${RUN}/${filed.body.handoffId}/split-real-${RUN}`]);

    // profiles.updated: each replica's profile cache (its own per-host group) hears the write.
    const auth = await metricsAuth();
    const invalidations = async () =>
      Promise.all(
        platform.replicaUrls['flow-runtime'].map(async (u) => {
          const text = (await call(`${u}/metrics`, { headers: auth })).text;
          return Number(/^profile_resolver_cache\{[^}]*stat="invalidations"[^}]*\} (\d+)/m.exec(text)?.[1] ?? NaN);
        }),
      );
    const before = await invalidations();
    expect(before.every(Number.isFinite)).toBe(true);
    const profile = await call(`${api}/admin/profiles`, { method: 'POST', bearer: admin, ...json({ module: 'llm', kind: 'llm-chat', profileId: `split-real-${RUN}`, name: 'Split real', config: { providerID: 'local', model: 'm' } }) });
    expect([200, 201]).toContain(profile.status);
    const after = await until(invalidations, (n) => n.every((v, i) => v > before[i]), 15_000, 100);
    expect(after.map((v, i) => v > before[i])).toEqual([true, true]);
  }, 120_000);

  it('translates a reported key through the on-change flow (i18n.keys_changed across processes)', async () => {
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'de' }) })).status).toBe(201);
    const key = `real.${RUN}.greeting`;
    const reported = await call(`${api}/i18n/report-keys`, { method: 'POST', ...json({ keys: [{ key, text: 'Hello {name}, welcome back', module: 'web' }] }) });
    expect(reported.status).toBe(200);
    const row = await until(
      async () => ((await call(`${api}/admin/i18n/translations?prefix=${encodeURIComponent(key)}`, { bearer: admin })).body?.items ?? []).find((r: { key: string }) => r.key === key),
      (r: { translations?: Record<string, string> } | undefined) => Boolean(r?.translations?.de),
      30_000,
      200,
    );
    // The `local` provider pseudo-localizes: the placeholder survives the round trip.
    expect(row?.translations?.de).toContain('{name}');
  }, 90_000);

  it('answers a chat through the assistant: gateway → assistant → flow-runtime, the transcript in the assistant database', async () => {
    expect((await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: admin })).status).toBe(200);
    const chat = (body: unknown) => fetch(`${api}/assistant/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const first = await chat({ message: `hello from ${RUN}` });
    expect(first.status).toBe(200);
    const sessionId = first.headers.get('x-assistant-session-id')!;
    const frames = parseSse(await first.text());
    expect(frames.map((f) => f.event)).toEqual(['session', 'message']);
    expect(frames[1].data).toMatchObject({ content: `hello from ${RUN}`, status: 'completed' });
    const again = parseSse(await (await chat({ sessionId, message: 'and again' })).text());
    expect(again[1].data.content).toBe('and again');
    const transcript = await call(`${api}/assistant/chats/me/${sessionId}`);
    expect(transcript.body.messages.map((m: { role: string; content: string }) => `${m.role}: ${m.content}`)).toEqual([`user: hello from ${RUN}`, `assistant: hello from ${RUN}`, 'user: and again', 'assistant: and again']);
    // Kept on the server, in the assistant's own database.
    const client = await MongoClient.connect(mongoUrl);
    try {
      const db = client.db(split.serviceDatabase('assistant'));
      const names = (await db.listCollections().toArray()).map((c) => c.name);
      const found = await Promise.all(names.map(async (n) => db.collection(n).countDocuments({ $or: [{ sessionId }, { _id: sessionId as never }] })));
      expect(found.some((n) => n > 0)).toBe(true);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('keeps page search current across processes: a page written in i18n is found through search, its change too', async () => {
    const slug = `bikes-${RUN}`;
    const put = (body: unknown) => call(`${api}/admin/content/pages/${slug}`, { method: 'PUT', bearer: admin, ...json(body) });
    const page = { title: { en: `Bike rental ${RUN}` }, body: { en: '<p>We rent bicycles and helmets by the day.</p>' } };
    expect((await put(page)).status).toBe(201);
    const search = (text: string) => call(`${api}/search/indexes/pages-en/query`, { method: 'POST', bearer: admin, ...json({ text, limit: 5 }) });
    const hit = await until(() => search('rent bicycles helmets'), (r) => r.status === 200 && r.body.hits?.some((h: { id: string }) => h.id === slug), 30_000, 200);
    expect(hit.body.hits.find((h: { id: string }) => h.id === slug).payload).toMatchObject({ slug, locale: 'en', title: `Bike rental ${RUN}` });
    expect((await put({ ...page, title: { en: `Cycle hire ${RUN}` } })).status).toBe(200);
    await until(
      () => search('rent bicycles helmets'),
      (r) => r.status === 200 && r.body.hits?.find((h: { id: string }) => h.id === slug)?.payload?.title === `Cycle hire ${RUN}`,
      30_000,
      200,
    );
  }, 90_000);

  itIntegration(
    'delivers a broadcast through the gateway to clients of both hub replicas, bridged over NATS',
    natsBin ? false : 'nats-server is not installed',
    { requiredInCi: true },
    async () => {
      const alice = await token('split-real-alice');
      const room = `room-${RUN}`;
      const [one, two] = platform.replicaUrls.hub;
      const health = async (u: string) => (await call(`${u}/ws/health`)).body;
      await until(async () => [await health(one), await health(two)], (h) => h.every((x) => x?.distributed === true), 20_000, 100);
      const join = async (u: string) => {
        const c = await HubClient.connect(`${u.replace('http', 'ws')}/ws/connect?token=${alice}&room=${room}`);
        clients.push(c);
        await c.frameAt(0);
        return c;
      };
      const onOne = await join(one);
      const onTwo = await join(two);
      const sent = await call(`${platform.gatewayUrl}/ws/broadcast/${room}`, { method: 'POST', bearer: alice, ...json({ n: 1, run: RUN }) });
      // Delivered on replica 1 (the gateway's), handed to the bridge for replica 2.
      expect(sent.body).toEqual({ room, delivered: 1, bridged: true });
      for (const c of [onOne, onTwo]) await c.until(() => c.of('message').length >= 1, 10_000, 'the broadcast');
      await new Promise((r) => setTimeout(r, 250));
      expect(onOne.of('message').map((f) => f.data)).toEqual([{ n: 1, run: RUN }]);
      expect(onTwo.of('message').map((f) => f.data)).toEqual([{ n: 1, run: RUN }]);
    },
    60_000,
  );
});
