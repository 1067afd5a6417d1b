import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { Topics } from '@flowplane/contracts';
import { KafkaEventBus, type Subscription } from '@flowplane/platform/bus';
import {
  describeIntegration,
  type KafkaCluster,
  kafkaEngineUnavailable,
  kafkaMockUnavailable,
  startKafkaCluster,
  startKafkaMock,
} from '@flowplane/platform/testing';
import { type SplitPlatform, startSplit } from '../../tools/split/split';
import { call, json, tempDir, TEST_SECRET, token, until } from '../support/http';

/**
 * Faults tier, in split mode over a 3-broker Apache Kafka cluster (KRaft, replication factor 3,
 * `min.insync.replicas=2`): events flow into an event-source flow (its auto-managed subscriber
 * deployment) and into an explicit subscriber deployment while the two flow-runtime replicas are
 * killed with SIGKILL at random moments and restarted, and one Kafka broker is SIGKILLed in the
 * middle of the traffic and started again. Where Kafka cannot start (no Java), the tier runs
 * on the Kafka mock broker without the broker kill (`FAULTS_BROKER=mock` forces that).
 *
 * - every event's run reaches its effect: a POST to the sink keyed by the event's id (0 lost);
 * - the effect is idempotent by that key: redeliveries after a kill reach the sink again and are
 *   counted (duplicates seen) and absorbed (applied once);
 * - the dead-letter topics receive exactly the poison events planted on purpose, each at least once
 *   (the sink drops their connection, the run fails, the bus retries and parks them; a kill between
 *   parking one and committing its offset parks it again on redelivery, as any at-least-once
 *   consumer would, and the figures count those);
 * - a kill right after a write returns loses no event: the profiles, deployments and assistant
 *   processes are killed after a write and restarted, and the event still arrives (outboxes).
 *
 * CI size: FAULTS_EVENTS=1000, FAULTS_KILLS=5. Full size: `npm run faults -- --events 10000 --kills 20`.
 */

const EVENTS = Number(process.env.FAULTS_EVENTS ?? 1000);
const KILLS = Number(process.env.FAULTS_KILLS ?? 5);
const POISON = Number(process.env.FAULTS_POISON ?? Math.max(4, Math.round(EVENTS / 250)));
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 100000);
const BROKER: 'kafka' | 'mock' =
  process.env.FAULTS_BROKER === 'mock' || (process.env.FAULTS_BROKER !== 'kafka' && kafkaEngineUnavailable() !== false) ? 'mock' : 'kafka';
const brokerUnavailable = BROKER === 'kafka' ? kafkaEngineUnavailable() : kafkaMockUnavailable();
/** Budget of the drain after the last publish; generous, the figures say how long it took. */
const DRAIN_MS = Number(process.env.FAULTS_DRAIN_MS ?? 120_000 + EVENTS * 40 + KILLS * 15_000);

/** A small seeded generator: a failing run can be replayed with FAULTS_SEED. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** The effect's target: applies each event id once, counts every repeat it absorbs. */
interface Sink {
  url: string;
  applied: Map<string, number>;
  poisonHits: number;
  close(): Promise<void>;
}

async function sink(): Promise<Sink> {
  const applied = new Map<string, number>();
  const s: Sink = { url: '', applied, poisonHits: 0, close: async () => undefined };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const [, , stream, id] = (req.url ?? '').split('/');
      if (stream === 'poison') s.poisonHits++;
      const key = `${stream}/${id}`;
      applied.set(key, (applied.get(key) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return s;
}

/**
 * start → POST to the sink (URL keyed by stream and event id) → end. The port comes from the event:
 * a poison event's port is not a number, so the node refuses the URL and the run fails (an answer
 * on the node's Error port, like a network error, would end the run normally).
 */
const effectFlow = (name: string, sinkUrl: string, start: Record<string, unknown>) => ({
  name,
  nodes: [
    { id: 'start', name: 'Start', kind: 'start', ...start },
    { id: 'effect', name: 'Effect', kind: 'action', action_ref: 'svc/http-request', config: { method: 'POST', url: `${sinkUrl.replace(/:\d+$/, '')}:{{ input.port }}/sink/{{ input.stream }}/{{ input.id }}`, bodyFrom: '', timeoutMs: 5000 } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'effect' },
    { id: 'e2', from: 'effect', to: 'end', port: 'out' },
  ],
});

const silent = { warn: () => undefined, error: () => undefined };

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeIntegration(`tier 4: faults in split mode on ${BROKER === 'kafka' ? 'a 3-broker Apache Kafka cluster' : 'the Kafka mock broker'} (SIGKILLed flow-runtime replicas${BROKER === 'kafka' ? ' and a broker' : ''}, outboxes after a kill)`, brokerUnavailable, { requiredInCi: true }, () => {
  let broker: { brokers: string[]; stop(): Promise<void> };
  let cluster: KafkaCluster | undefined;
  let platform: SplitPlatform;
  let dataDir: string;
  let bus: KafkaEventBus;
  let target: Sink;
  let admin: string;
  let api: string;
  let replicaApis: string[];
  const subs: Subscription[] = [];
  const dlq: Array<{ topic: string; id: string }> = [];
  const figures: string[] = [];
  const random = rng(SEED);

  const publishOn = async (base: string, flowId: string, doc: unknown) => {
    await call(`${base}/flows`, { method: 'POST', bearer: admin, ...json({ id: flowId, name: flowId }) });
    const saved = await call(`${base}/flows/${flowId}/versions`, { method: 'POST', bearer: admin, ...json(doc) });
    expect(saved.status).toBe(201);
    const published = await call(`${base}/flows/${flowId}/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) });
    expect(published.status).toBe(200);
  };
  const subscriptions = async (flowId: string) =>
    (await Promise.all(replicaApis.map(async (b) => ((await call(`${b}/flows/${flowId}/subscriptions`, { bearer: admin }).catch(() => ({ body: [] }))).body ?? []) as Array<{ state: string; lag?: number; processed: number; failedRuns: number; lastError?: string }>))).flat();

  beforeAll(async () => {
    dataDir = tempDir('faults');
    target = await sink();
    const topics = { 'faults.orders': 4, 'faults.orders.dlq': 1, 'faults.audit': 4, 'faults.audit.dlq': 1 };
    if (BROKER === 'kafka') {
      cluster = await startKafkaCluster({ dataDir: `${dataDir}/kafka`, nodes: 3 });
      broker = { brokers: cluster.brokers, stop: () => cluster!.stop() };
      const provisioner = new KafkaEventBus({
        brokers: cluster.brokers,
        logLevel: logLevel.NOTHING,
        logger: silent,
        topics: { overrides: Object.fromEntries(Object.entries(topics).map(([t, partitions]) => [t, { partitions }])) },
      });
      await provisioner.provision(Object.keys(topics));
      await provisioner.close();
    } else {
      broker = await startKafkaMock({ topics: Object.entries(topics).map(([name, partitions]) => ({ name, partitions })) });
    }
    platform = await startSplit({
      brokers: broker.brokers,
      basePort: 19480,
      replicas: { 'flow-runtime': 2 },
      env: {
        AUTH_JWT_SECRET: TEST_SECRET,
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        GATEWAY_RATE_LIMIT: '0',
        FLOW_HTTP_ALLOW_PRIVATE: 'true',
        BUS_MAX_ATTEMPTS: '3',
        KAFKA_MAX_WAIT_MS: '100',
        // A killed member's partitions move to the survivor after one session timeout.
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        KAFKA_HEARTBEAT_INTERVAL_MS: '500',
        I18N_AUTO_TRANSLATE_DISABLED: 'true',
      },
      startTimeoutMs: 90_000,
      startAttempts: 2,
      inheritOutput: process.env.FAULTS_VERBOSE === '1',
    });
    admin = await token('faults-admin', ['admin:access', 'profiles:*'], { superuser: true });
    api = `${platform.gatewayUrl}/api/v1`;
    replicaApis = platform.replicaUrls['flow-runtime'].map((u) => `${u}/api/v1`);
    bus = new KafkaEventBus({ brokers: broker.brokers, clientId: 'faults-tier', idempotent: BROKER === 'kafka', retry: { retries: 10, initialRetryTime: 200 }, sessionTimeout: 6000, heartbeatInterval: 300, maxWaitTimeInMs: 50, logLevel: logLevel.NOTHING, logger: silent });
    subs.push(
      await bus.subscribe<{ id: string }>(['faults.orders.dlq', 'faults.audit.dlq'], { groupId: 'faults-dlq-reader', fromBeginning: true }, async (e, ctx) => {
        dlq.push({ topic: ctx.topic, id: String(e.data?.id) });
      }),
    );

    // Each replica has its own embedded store (split mode), so both get the flows; the bus groups span them.
    for (const base of replicaApis) {
      await publishOn(base, 'faults-orders', effectFlow('Faults orders', target.url, { action_ref: 'svc/event-source', config: { eventName: 'faults.orders', groupID: 'faults-orders' } }));
      await publishOn(base, 'faults-audit', effectFlow('Faults audit', target.url, {}));
    }
    const dep = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ id: 'faults-audit-sub', name: 'Faults audit subscriber', kind: 'subscriber', labels: { 'x-event': 'faults.audit' }, variants: [{ label: 'stable', flowId: 'faults-audit', weight: 1 }] }) });
    expect(dep.status).toBe(201);
    const bound = await until(
      async () => [...(await subscriptions('faults-orders')), ...(await subscriptions('faults-audit'))],
      (s) => s.length >= 4 && s.every((x) => x.state === 'active'),
      60_000,
      250,
    );
    expect(bound.map((s) => s.state)).toEqual(['active', 'active', 'active', 'active']);
    // Warm up until every member of both groups has run events: the groups are then settled with
    // both replicas holding partitions, so the counted batch starts on a stable assignment.
    let warm = 0;
    const settled = await until(
      async () => {
        for (let k = 0; k < 4; k++) {
          warm++;
          await bus.publish('faults.orders', { stream: 'warm', id: `o${warm}`, port: new URL(target.url).port }, { key: `warm-o${warm}` });
          await bus.publish('faults.audit', { stream: 'warm', id: `a${warm}`, port: new URL(target.url).port }, { key: `warm-a${warm}` });
        }
        return [...(await subscriptions('faults-orders')), ...(await subscriptions('faults-audit'))];
      },
      (s) => s.length >= 4 && s.every((x) => x.processed > 0),
      90_000,
      500,
    );
    expect(settled.map((s) => s.processed > 0)).toEqual([true, true, true, true]);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(subs.map((s) => s.stop().catch(() => undefined)));
    await bus?.close();
    await platform?.stop();
    await broker?.stop();
    await target?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (figures.length) console.log(figures.join('\n'));
  }, 60_000);

  it(
    `delivers ${EVENTS} events through ${KILLS} SIGKILLs of flow-runtime replicas: 0 lost, effects once, only the planted poison on the DLQ`,
    async () => {
      const sinkPort = new URL(target.url).port;
      const poisonAt = new Set<number>();
      while (poisonAt.size < Math.min(POISON, EVENTS)) poisonAt.add(Math.floor(random() * EVENTS));
      const expected = new Set<string>();
      const poisonIds = new Set<string>();
      const started = Date.now();

      // The events go out in KILLS + 1 slices. During each slice but the last, at a random moment,
      // a replica is killed while it runs that slice's events, and restarted; the next slice starts
      // once it is back (and re-joining its groups). Every kill thus lands in traffic however long
      // a restart takes, and one replica is down at a time.
      const slice = Math.ceil(EVENTS / (KILLS + 1));
      const sliceMs = (slice / 25) * 200;
      const sliceStarted = Array.from({ length: KILLS }, () => deferred());
      const killedAt = Array.from({ length: KILLS }, () => deferred());
      const restarted = Array.from({ length: KILLS }, () => deferred());
      let kills = 0;
      let killing = true;
      const killer = (async () => {
        for (let k = 0; k < KILLS; k++) {
          await sliceStarted[k].promise;
          await sleep(random() * sliceMs);
          const key = random() < 0.5 ? 'flow-runtime' : 'flow-runtime#2';
          platform.processes[key].kill('SIGKILL');
          kills++;
          killedAt[k].resolve();
          await sleep(random() * 1000);
          await platform.restart(key);
          restarted[k].resolve();
        }
        killing = false;
      })();
      // A restart that fails must not leave the publisher waiting: the test fails on `await killer`.
      killer.catch(() => [...sliceStarted, ...killedAt, ...restarted].forEach((d) => d.resolve()));
      // One Kafka broker dies in the middle of the traffic (leaders move, the group coordinator may
      // be on it) and comes back on its data a few seconds later.
      let brokerKill = '';
      const brokerKiller = (async () => {
        if (!cluster || KILLS === 0) return;
        await sliceStarted[Math.floor(KILLS / 2)].promise;
        await sleep(random() * sliceMs);
        const node = cluster.nodes[Math.floor(random() * cluster.nodes.length)];
        await node.kill('SIGKILL');
        const down = Date.now();
        await sleep(5000);
        await node.start();
        brokerKill = `broker ${node.id} of 3 SIGKILLed, back after ${((Date.now() - down) / 1000).toFixed(1)} s`;
      })();

      for (let i = 0, k = 0; i < EVENTS; i++) {
        if (i % slice === 0 && k < KILLS) {
          if (k > 0) await restarted[k - 1].promise;
          sliceStarted[k].resolve();
        }
        const topic = i % 2 === 0 ? 'faults.orders' : 'faults.audit';
        const id = `e${i}`;
        const stream = poisonAt.has(i) ? 'poison' : topic === 'faults.orders' ? 'orders' : 'audit';
        if (stream === 'poison') poisonIds.add(id);
        else expected.add(`${stream}/${id}`);
        await bus.publish(topic, { stream, id, port: stream === 'poison' ? 'poison' : sinkPort }, { key: id });
        // About 125 events a second: a slice lasts long enough for its kill to find events in flight.
        if (i % 25 === 24) await sleep(200);
        if ((i + 1) % slice === 0 && k < KILLS) await killedAt[k++].promise;
      }
      const published = Date.now();
      await killer;
      await brokerKiller;
      const lost = () => [...expected].filter((k) => !target.applied.has(k));
      const drained = await until(async () => ({ lost: lost().length, dlq: new Set(dlq.map((d) => d.id)).size }), (s) => s.lost === 0 && s.dlq >= poisonIds.size, DRAIN_MS, 250);
      const drainMs = Date.now() - published;
      // Redeliveries may trail the drain: give them time to show up before counting.
      await sleep(3000);
      const lag = [...(await subscriptions('faults-orders')), ...(await subscriptions('faults-audit'))];

      const repeats = [...target.applied.entries()].filter(([k]) => expected.has(k)).reduce((n, [, c]) => n + c - 1, 0);
      const dlqIds = [...new Set(dlq.map((d) => d.id))].sort();
      const parkedAgain = dlq.length - dlqIds.length;
      figures.push(
        `faults: ${BROKER === 'kafka' ? `Apache Kafka 3 brokers (${brokerKill || 'no broker kill'})` : 'Kafka mock broker'}; events ${EVENTS} (poison ${poisonIds.size}), kills ${kills}, lost ${drained.lost}, duplicates seen ${repeats}, absorbed ${repeats}, applied more than once 0, ` +
          `dead-lettered ${dlqIds.length} (planted ${poisonIds.size}; parked again after a kill ${parkedAgain}), time to drain ${(drainMs / 1000).toFixed(1)} s (total ${((Date.now() - started) / 1000).toFixed(1)} s), seed ${SEED}`,
      );
      if (drained.lost > 0 || dlqIds.length !== poisonIds.size) {
        figures.push(`faults: lost ${lost().slice(0, 30).join(' ')}; poison calls at the sink ${target.poisonHits}; bindings ${JSON.stringify(lag)}`);
        // Where each group stands per partition against the log: a committed offset past events
        // that never ran points at the consumer side, a log shorter than what was published at the broker.
        const admin = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING }).admin();
        await admin.connect();
        for (const [groupId, topic] of [['faults-orders', 'faults.orders'], ['deployment-faults-audit-sub', 'faults.audit']]) {
          const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
          const ends = await admin.fetchTopicOffsets(topic);
          figures.push(`faults: ${groupId} ${ends.map((e) => `p${e.partition} ${committed.partitions.find((c) => c.partition === e.partition)?.offset}/${e.low}..${e.high}`).join(', ')}`);
        }
        await admin.disconnect();
      }
      expect(killing).toBe(false);
      expect({ lost: lost().slice(0, 20), dlq: dlqIds }).toEqual({ lost: [], dlq: [...poisonIds].sort() });
      // Every group committed what it processed (no lag left on a live member).
      expect(lag.filter((s) => s.state === 'active' && (s.lag ?? 0) > 0)).toEqual([]);
    },
    300_000 + EVENTS * 60 + KILLS * 20_000,
  );

  it('loses no event when the owning process is killed right after a write returns (profiles, deployments, assistant handoffs)', async () => {
    const seen: Array<{ topic: string; data: string }> = [];
    subs.push(
      await bus.subscribe([Topics.ProfilesUpdated, Topics.DeploymentsChanged, Topics.AssistantHandoffRequested], { groupId: 'faults-outbox-reader', fromBeginning: false }, async (e, ctx) => {
        seen.push({ topic: ctx.topic, data: JSON.stringify(e.data) });
      }),
    );
    const results: string[] = [];
    const afterKill = async (service: string, topic: string, marker: string, write: () => Promise<{ status: number }>) => {
      const res = await write();
      expect({ service, ok: res.status === 200 || res.status === 201 }).toEqual({ service, ok: true });
      platform.processes[service].kill('SIGKILL');
      const t0 = Date.now();
      await platform.restart(service);
      const arrived = await until(async () => seen.some((s) => s.topic === topic && s.data.includes(marker)), Boolean, 30_000, 100);
      results.push(`${service} ${arrived ? `event after ${((Date.now() - t0) / 1000).toFixed(1)} s` : 'LOST'}`);
      return arrived;
    };
    const outcomes = {
      profiles: await afterKill('profiles', Topics.ProfilesUpdated, 'faults-outbox-profile', () =>
        call(`${api}/admin/profiles`, { method: 'POST', bearer: admin, ...json({ module: 'llm', kind: 'llm-chat', profileId: 'faults-outbox-profile', name: 'Outbox', config: { providerID: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1', model: 'm' } }) }),
      ),
      deployments: await afterKill('deployments', Topics.DeploymentsChanged, 'faults-audit-sub', () =>
        call(`${api}/deployments/faults-audit-sub`, { method: 'PATCH', bearer: admin, ...json({ name: 'Faults audit subscriber, renamed before a kill' }) }),
      ),
      assistant: await afterKill('assistant', Topics.AssistantHandoffRequested, 'faults-outbox-session', () =>
        call(`${api}/assistant/handoff`, { method: 'POST', ...json({ sessionId: 'faults-outbox-session', email: 'faults@example.com', reason: 'outbox after a kill' }) }),
      ),
    };
    figures.push(`faults: outbox after a kill: ${results.join(', ')}`);
    expect(outcomes).toEqual({ profiles: true, deployments: true, assistant: true });
  }, 180_000);
});
