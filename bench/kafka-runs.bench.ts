/**
 * Event-triggered runs over real Kafka, in split mode, next to kafkajs alone on the same broker in
 * the same run.
 *
 *   set -a; eval "$(npm run -s engines:env)"; set +a; npm run bench -- kafka-runs
 *
 * Ours: every service as its own process (tools/split/split.ts, BUS=kafka, embedded stores in a
 * temp DATA_DIR), a published event-source flow (start → end, so the cost measured is consume →
 * run → persist, not an effect) and the platform's KafkaEventBus publishing to its topic from this
 * process. Baseline: a kafkajs producer (acks -1, same partitioner, same key, value and headers)
 * and a kafkajs consumer group whose eachMessage only counts, on a fresh topic with the same
 * partition count and the same fetch wait.
 *
 * Rows:
 * - runs/s: N events published at once; N / (first publish → the last run's `finishedAt`), against
 *   kafkajs messages/s (first send → last eachMessage). Alternating rounds, best of each.
 * - publish → run start, p50 and p99: one event at a time (the next once the run has ended); the
 *   run's `startedAt` (GET /runs, millisecond resolution) minus the publish time, against the raw
 *   publish → eachMessage time of single messages. `notes` has the latency added.
 *
 * Without KAFKA_BROKERS / TEST_KAFKA_BROKERS (or when the broker does not answer) it prints one
 * `skipped:` line and returns no rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Admin, type Consumer, type IHeaders, Kafka, logLevel, type Message, Partitioners, type Producer } from 'kafkajs';
import { mintToken } from '@flowplane/platform/auth';
import { KafkaEventBus } from '@flowplane/platform/bus';
import { type SplitPlatform, startSplit } from '../tools/split/split';
import { runWhenMain, type BenchResult } from './bench-result';

const BENCH = 'kafka-runs';
const EVENTS = Number(process.env.KAFKA_RUNS_EVENTS ?? 5000);
const LATENCY_EVENTS = Number(process.env.KAFKA_RUNS_LATENCY_EVENTS ?? 300);
const ROUNDS = Number(process.env.KAFKA_RUNS_ROUNDS ?? 2);
const WARMUP = 500;
const WARMUP_MIN_MS = 10_000;
const WARMUP_MS = Number(process.env.KAFKA_RUNS_WARMUP_MS ?? 30_000);
/** KAFKA_MAX_WAIT_MS of the services and maxWaitTimeInMs of the baseline consumer. */
const MAX_WAIT_MS = Number(process.env.KAFKA_RUNS_MAX_WAIT_MS ?? 10);
/** KAFKA_TOPIC_PARTITIONS default: the partitions of the topic the platform creates; the baseline's topic gets as many. */
const PARTITIONS = 6;
/** What the bus sends per produce request (KafkaEventBus maxBatchSize default); the baseline sends the same batches. */
const PRODUCE_BATCH = 500;
const KEYS = 1000;
const SECRET = 'bench-kafka-runs-secret-0123456789';
const silent = { warn: () => undefined, error: () => undefined };

interface Payload {
  id: string;
  n: number;
  name: string;
  tags: string[];
}

const payload = (i: number): Payload => ({ id: `evt-${i}`, n: i, name: 'order placed', tags: ['a', 'b'] });
const keyOf = (i: number): string => `agg-${i % KEYS}`;

function brokersFromEnv(): string[] {
  return (process.env.KAFKA_BROKERS || process.env.TEST_KAFKA_BROKERS || '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
}

function answers(hostPort: string, ms = 2000): Promise<boolean> {
  const at = hostPort.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = connect({ host: hostPort.slice(0, at), port: Number(hostPort.slice(at + 1)) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ms, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A gateway port whose 8 service ports (base .. base+7) are all free. */
async function freeBasePort(start: number): Promise<number> {
  for (let base = start; base < start + 400; base += 20) {
    let free = true;
    for (let p = base; p < base + 8 && free; p++) free = await portFree(p);
    if (free) return base;
  }
  throw new Error(`no 8 free ports from ${start}`);
}

/**
 * Milliseconds since the epoch with sub-millisecond resolution: the monotonic clock, offset to
 * the wall clock at the instant Date.now() ticks (so the offset itself is not rounded to 1 ms).
 * The services stamp `startedAt` with Date.now() on the same machine.
 */
function wallClock(): () => number {
  const first = Date.now();
  let now = Date.now();
  while (now === first) now = Date.now();
  const offset = now - performance.now();
  return () => offset + performance.now();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

const fmt = (v: number, digits = 2) => v.toFixed(digits);

async function until<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms: number, everyMs: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${BENCH}: ${what} not reached within ${ms} ms (last: ${JSON.stringify(v)})`);
    await sleep(everyMs);
  }
}

interface SubscriptionState {
  state: string;
  processed: number;
  failedRuns: number;
  lastError?: string;
  rebalances?: number;
}

interface RunSummary {
  runId: string;
  status: string;
  startedAt: string;
  finishedAt?: string;
}

/** The platform side: split services, an event-source flow, the platform's bus publishing to its topic. */
class Ours {
  private api = '';
  private auth: Record<string, string> = {};
  private constructor(
    readonly platform: SplitPlatform,
    readonly bus: KafkaEventBus,
    readonly topic: string,
    readonly flowId: string,
  ) {}

  static async start(brokers: string[], dataDir: string, stamp: string): Promise<Ours> {
    const basePort = await freeBasePort(19780);
    const platform = await startSplit({
      brokers,
      basePort,
      env: {
        AUTH_JWT_SECRET: SECRET,
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        STORE: 'embedded',
        KAFKA_MAX_WAIT_MS: String(MAX_WAIT_MS),
        GATEWAY_RATE_LIMIT: '0',
        // Background flows and indexes the bench does not measure.
        I18N_AUTO_TRANSLATE_DISABLED: 'true',
        CONTENT_PAGE_SEARCH: 'false',
      },
      startTimeoutMs: 90_000,
      startAttempts: 2,
    });
    const bus = new KafkaEventBus({ brokers, clientId: 'bench-kafka-runs', logLevel: logLevel.NOTHING, logger: silent });
    const ours = new Ours(platform, bus, `bench.kafka_runs_${stamp}`, `bench-kafka-runs-${stamp}`);
    try {
      await ours.publishFlow(`bench-kafka-runs-${stamp}`);
    } catch (e) {
      await ours.stop();
      throw e;
    }
    return ours;
  }

  private async call<T>(method: string, p: string, body?: unknown): Promise<T> {
    const res = await fetch(this.api + p, { method, headers: this.auth, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${BENCH}: ${method} ${p} answered ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  }

  private async publishFlow(groupId: string): Promise<void> {
    this.api = `${this.platform.urls['flow-runtime']}/api/v1`;
    // As tests/support/http.ts token() mints it: signed with the platform's secret.
    const token = await mintToken(SECRET, { sub: 'bench-admin', perms: ['admin:access'], superuser: true });
    this.auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await this.call('POST', '/flows', { id: this.flowId, name: 'Bench kafka runs' });
    const version = await this.call<{ versionId: string }>('POST', `/flows/${this.flowId}/versions`, {
      name: 'Bench kafka runs',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start', action_ref: 'svc/event-source', config: { eventName: this.topic, groupID: groupId } },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [{ id: 'e1', from: 'start', to: 'end' }],
    });
    await this.call('POST', `/flows/${this.flowId}/publish`, { versionID: version.versionId });
    await until('the event-source subscription active', () => this.subscriptions(), (s) => s.some((x) => x.state === 'active'), 60_000, 250);
  }

  subscriptions(): Promise<SubscriptionState[]> {
    return this.call<SubscriptionState[]>('GET', `/flows/${this.flowId}/subscriptions`);
  }

  async processed(): Promise<{ processed: number; failedRuns: number; lastError?: string }> {
    const subs = await this.subscriptions();
    return { processed: subs.reduce((n, s) => n + s.processed, 0), failedRuns: subs.reduce((n, s) => n + s.failedRuns, 0), lastError: subs.find((s) => s.lastError)?.lastError };
  }

  async newest(limit = 1): Promise<RunSummary[]> {
    return (await this.call<{ items: RunSummary[] }>('GET', `/runs?flowId=${encodeURIComponent(this.flowId)}&limit=${limit}`)).items;
  }

  /** Publishes `n` events at once and waits until `processed` has grown by n; runs/s to the last run's end. */
  async burst(n: number, from: number, now: () => number): Promise<number> {
    const before = await this.processed();
    const t0 = now();
    const pending: Array<Promise<unknown>> = [];
    for (let i = from; i < from + n; i++) pending.push(this.bus.publish(this.topic, payload(i), { key: keyOf(i) }));
    await Promise.all(pending);
    const after = await until(`${n} runs done`, () => this.processed(), (s) => s.processed >= before.processed + n || s.failedRuns > before.failedRuns, 300_000, 200);
    if (after.failedRuns > before.failedRuns) throw new Error(`${BENCH}: ${after.failedRuns - before.failedRuns} runs failed: ${after.lastError}`);
    // Runs go one at a time in start order, so the newest ones hold the last end; take the latest of a page anyway.
    const ends = (await this.newest(50)).map((r) => (r.finishedAt ? Date.parse(r.finishedAt) : 0));
    const end = Math.max(...ends);
    return n / ((end - t0) / 1000);
  }

  /** Publish → run start (ms) of `n` single events, each once the previous run has ended. */
  async latencies(n: number, from: number, now: () => number): Promise<number[]> {
    let last = (await this.newest(1))[0]?.runId;
    const out: number[] = [];
    for (let i = from; i < from + n; i++) {
      const t0 = now();
      await this.bus.publish(this.topic, payload(i), { key: keyOf(i) });
      // Polled gently (the service doing the run answers the polls): startedAt is the service's own stamp, so polling later costs time, not accuracy.
      await sleep(10);
      const [run] = await until('a run of the event', () => this.newest(1), (r) => r.length > 0 && r[0].runId !== last && r[0].status !== 'running', 30_000, 10);
      if (run.status !== 'completed') throw new Error(`${BENCH}: run ${run.runId} ended ${run.status}`);
      last = run.runId;
      // startedAt is a Date (whole milliseconds, truncated): +0.5 ms puts each sample mid-interval.
      out.push(Date.parse(run.startedAt) + 0.5 - t0);
    }
    return out;
  }

  async stop(): Promise<void> {
    await this.bus.close().catch(() => undefined);
    await this.platform.stop().catch(() => undefined);
  }
}

/** The baseline: kafkajs alone, producing the same messages and consuming them with a counter. */
class Raw {
  private count = 0;
  private target = Number.POSITIVE_INFINITY;
  private reached?: (at: number) => void;
  private constructor(
    readonly producer: Producer,
    readonly consumer: Consumer,
    readonly topic: string,
  ) {}

  static async start(kafka: Kafka, admin: Admin, topic: string, groupId: string): Promise<Raw> {
    await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true, timeout: 10_000 });
    const producer = kafka.producer({ allowAutoTopicCreation: true, createPartitioner: Partitioners.DefaultPartitioner });
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: MAX_WAIT_MS });
    const raw = new Raw(producer, consumer, topic);
    try {
      await producer.connect();
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
      await consumer.run({
        // Offsets committed once a second, as KafkaEventBus commits them (kafkajs would otherwise
        // commit after every batch, a broker round trip before each next fetch ours does not pay).
        autoCommitInterval: 1000,
        eachMessage: async () => {
          if (++raw.count >= raw.target) {
            raw.target = Number.POSITIVE_INFINITY;
            raw.reached?.(performance.now());
          }
        },
      });
      await joined;
    } catch (e) {
      await raw.stop();
      throw e;
    }
    return raw;
  }

  private waitFor(n: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${BENCH}: the kafkajs consumer got ${this.count} of ${this.target} messages in 120 s`)), 120_000);
      this.reached = (at) => {
        clearTimeout(timer);
        resolve(at);
      };
      this.target = this.count + n;
    });
  }

  /** The message KafkaEventBus.publish would send: same key, JSON value, CloudEvents headers, timestamp. */
  private message(i: number): Message {
    const time = new Date().toISOString();
    const headers: IHeaders = {
      'content-type': 'application/json',
      ce_specversion: '1.0',
      ce_id: randomUUID(),
      ce_source: '/flowplane',
      ce_type: this.topic,
      ce_time: time,
      ce_subject: keyOf(i),
    };
    return { key: keyOf(i), value: JSON.stringify(payload(i)), headers, timestamp: String(Date.parse(time)) };
  }

  /** Sends `n` messages in the bus's batches (one request at a time, acks -1); messages/s to the last eachMessage. */
  async burst(n: number, from: number): Promise<number> {
    const done = this.waitFor(n);
    done.catch(() => undefined); // a failed send throws below; the timeout must not crash the process later
    const t0 = performance.now();
    for (let i = from; i < from + n; i += PRODUCE_BATCH) {
      const messages: Message[] = [];
      for (let j = i; j < Math.min(from + n, i + PRODUCE_BATCH); j++) messages.push(this.message(j));
      await this.producer.send({ topic: this.topic, acks: -1, messages });
    }
    const end = await done;
    return n / ((end - t0) / 1000);
  }

  /** Publish → eachMessage (ms) of `n` single messages, each once the previous one arrived. */
  async latencies(n: number, from: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = from; i < from + n; i++) {
      const done = this.waitFor(1);
      done.catch(() => undefined);
      const t0 = performance.now();
      await this.producer.send({ topic: this.topic, acks: -1, messages: [this.message(i)] });
      out.push((await done) - t0);
      // A pause like ours between samples (it polls for the run), so each starts on an idle consumer.
      await sleep(10);
    }
    return out;
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect().catch(() => undefined);
    await this.producer.disconnect().catch(() => undefined);
  }
}

/** Runs the benchmark; [] with a `skipped:` line when no broker is configured or it does not answer. */
export async function run(): Promise<BenchResult[]> {
  const brokers = brokersFromEnv();
  if (!brokers.length) {
    console.log(`skipped: ${BENCH}: neither KAFKA_BROKERS nor TEST_KAFKA_BROKERS is set (npm run engines:up)`);
    return [];
  }
  if (!(await answers(brokers[0]))) {
    console.log(`skipped: ${BENCH}: no Kafka broker answers at ${brokers[0]} (npm run engines:up)`);
    return [];
  }
  const log = (s: string) => process.stdout.write(`${BENCH}: ${s}\n`);
  const stamp = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'flowplane-bench-kafka-runs-'));
  const kafka = new Kafka({ brokers, clientId: 'bench-kafka-raw', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  let ours: Ours | undefined;
  let raw: Raw | undefined;
  const topics: string[] = [];
  try {
    await admin.connect();
    const started = Date.now();
    ours = await Ours.start(brokers, dataDir, stamp);
    topics.push(ours.topic, `${ours.topic}.dlq`);
    log(`split platform up and flow subscribed in ${Date.now() - started} ms`);
    raw = await Raw.start(kafka, admin, `bench.kafka_raw_${stamp}`, `bench-kafka-raw-${stamp}`);
    topics.push(raw.topic);

    const now = wallClock();
    let phase = Date.now();
    const lap = (what: string) => {
      log(`${what} in ${Date.now() - phase} ms`);
      phase = Date.now();
    };
    let seq = 0;
    const next = (n: number) => {
      const from = seq;
      seq += n;
      return from;
    };
    // Warm-up: JIT, connections, the group's first fetches, on both sides. The services are still
    // busy for a while after they answer /healthz (the first bursts run several times slower), so
    // ours warms up in bursts for at least WARMUP_MIN_MS, then until two in a row agree within 25%
    // (or WARMUP_MS passes).
    const warm: number[] = [];
    const warmFrom = Date.now();
    const agree = () => warm.length >= 2 && Math.abs(warm[warm.length - 1] - warm[warm.length - 2]) <= 0.25 * Math.max(warm[warm.length - 1], warm[warm.length - 2]);
    do warm.push(await ours.burst(WARMUP, next(WARMUP), now));
    while (Date.now() - warmFrom < WARMUP_MIN_MS || (Date.now() - warmFrom < WARMUP_MS && !agree()));
    log(`warm-up bursts of ${WARMUP}: [${warm.map((x) => fmt(x, 0)).join(', ')}] runs/s`);
    await raw.burst(WARMUP, next(WARMUP));
    await ours.latencies(10, next(10), now);
    await raw.latencies(10, next(10));
    lap('warm-up');

    const oursRates: number[] = [];
    const rawRates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      oursRates.push(await ours.burst(EVENTS, next(EVENTS), now));
      rawRates.push(await raw.burst(EVENTS, next(EVENTS)));
      lap(`round ${r + 1}: ${fmt(oursRates[r], 0)} runs/s, kafkajs ${fmt(rawRates[r], 0)} msg/s`);
    }
    // Latency in two interleaved halves, so drift in the machine's load reaches both sides.
    const oursLat: number[] = [];
    const rawLat: number[] = [];
    const half = Math.ceil(LATENCY_EVENTS / 2);
    for (let h = 0; h < 2; h++) {
      oursLat.push(...(await ours.latencies(half, next(half), now)));
      rawLat.push(...(await raw.latencies(half, next(half))));
    }
    lap(`latency, ${oursLat.length} + ${rawLat.length} single events`);

    const rebalances = (await ours.subscriptions()).reduce((n, x) => n + (x.rebalances ?? 0), 0);
    const best = (xs: number[]) => Math.max(...xs);
    const spread = (xs: number[]) => `${fmt(((best(xs) - Math.min(...xs)) / best(xs)) * 100, 0)}%`;
    const oursRate = best(oursRates);
    const rawRate = best(rawRates);
    const ratio = oursRate / rawRate;
    const sortedOurs = [...oursLat].sort((a, b) => a - b);
    const sortedRaw = [...rawLat].sort((a, b) => a - b);
    const latencyRow = (label: string, p: number, goal?: number): BenchResult => {
      const o = percentile(sortedOurs, p);
      const b = percentile(sortedRaw, p);
      const added = o - b;
      return {
        name: `${BENCH}: publish→run start ${label} ms`,
        ours: Number(o.toFixed(2)),
        baseline: Number(b.toFixed(3)),
        unit: 'ms',
        ratio: Number((o / b).toFixed(2)),
        notes:
          `baseline: raw kafkajs publish→eachMessage round trip; added ${fmt(added)} ms (lower is better)` +
          (goal !== undefined ? `; goal added <= ${goal} ms: ${added <= goal ? 'met' : 'NOT met'}` : '') +
          `; ${oursLat.length} vs ${rawLat.length} single events; run startedAt has 1 ms resolution (truncated, +0.5 ms applied)` +
          `; ours min ${fmt(sortedOurs[0])} max ${fmt(sortedOurs[sortedOurs.length - 1])}, raw min ${fmt(sortedRaw[0])} max ${fmt(sortedRaw[sortedRaw.length - 1])}`,
      };
    };
    const rows: BenchResult[] = [
      {
        name: `${BENCH}: event-triggered runs/s (split, Apache Kafka)`,
        ours: Math.round(oursRate),
        baseline: Math.round(rawRate),
        unit: 'events/s',
        ratio: Number(ratio.toFixed(3)),
        notes:
          `baseline: kafkajs produce+consume msg/s; goal >= 0.5x: ${ratio >= 0.5 ? 'met' : 'NOT met'}; ${EVENTS} events per round, best of ${ROUNDS}` +
          `; rounds ours [${oursRates.map((x) => fmt(x, 0)).join(', ')}] (spread ${spread(oursRates)}), kafkajs [${rawRates.map((x) => fmt(x, 0)).join(', ')}] (spread ${spread(rawRates)})` +
          `; ${PARTITIONS} partitions, ${KEYS} keys, acks -1, fetch wait ${MAX_WAIT_MS} ms; rebalances of the flow's consumer: ${rebalances}`,
      },
      latencyRow('p50', 0.5),
      latencyRow('p99', 0.99, 10),
    ];
    for (const r of rows) console.log(`${r.name}: ours ${r.ours} vs baseline ${r.baseline} ${r.unit} (ratio ${r.ratio}) ${r.notes ?? ''}`);
    return rows;
  } finally {
    const stopping = Date.now();
    await raw?.stop();
    await ours?.stop();
    log(`stopped in ${Date.now() - stopping} ms`);
    const existing = new Set(await admin.listTopics().catch(() => [] as string[]));
    const made = topics.filter((t) => existing.has(t));
    if (made.length) await admin.deleteTopics({ topics: made, timeout: 10_000 }).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runWhenMain(module, run);
