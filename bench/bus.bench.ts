import { EventEmitter } from 'node:events';
import { MemoryEventBus } from '@flowplane/platform/bus';
import type { BenchResult } from './bench-result';


const EVENTS = Number(process.env.BUS_BENCH_EVENTS ?? 200_000);
/** Publishes per synchronous burst before yielding to the event loop, as a busy service would. */
const BURST = 1000;
const KEYS = 1000;

function payload(i: number): { id: string; n: number; name: string; tags: string[] } {
  return { id: `agg-${i % KEYS}`, n: i, name: 'profile updated', tags: ['a', 'b'] };
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Events/s published and consumed by one group on the memory bus (publish start to last handler). */
async function memoryBus(events: number): Promise<number> {
  const bus = MemoryEventBus.silent();
  let consumed = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  await bus.subscribe<{ n: number }>(['bench.events'], { groupId: 'bench' }, async () => {
    if (++consumed === events) done();
  });
  const started = process.hrtime.bigint();
  for (let i = 0; i < events;) {
    const end = Math.min(events, i + BURST);
    for (; i < end; i++) void bus.publish('bench.events', payload(i), { key: `agg-${i % KEYS}` });
    await yieldToLoop();
  }
  await finished;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await bus.close();
  return events / seconds;
}

/**
 * The same emits and handler calls through a bare EventEmitter; `json` adds the JSON round trip
 * the bus must do to behave like Kafka, so the ratio isolates the log, groups and offsets.
 */
async function emitter(events: number, json: boolean): Promise<number> {
  const ee = new EventEmitter();
  let consumed = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const handler = async (_event: unknown): Promise<void> => {
    if (++consumed === events) done();
  };
  ee.on('bench.events', (raw: unknown) => {
    void handler(json ? JSON.parse(raw as string) : raw);
  });
  const started = process.hrtime.bigint();
  for (let i = 0; i < events;) {
    const end = Math.min(events, i + BURST);
    for (; i < end; i++) {
      const event = { id: `e${i}`, type: 'bench.events', time: new Date().toISOString(), data: payload(i) };
      ee.emit('bench.events', json ? JSON.stringify(event) : event);
    }
    await yieldToLoop();
  }
  await finished;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return events / seconds;
}

/** Runs the bus benchmark; best of three runs each, after a warm-up. */
export async function run(): Promise<BenchResult[]> {
  await memoryBus(20_000);
  await emitter(20_000, true);
  const best = async (f: () => Promise<number>): Promise<number> => Math.max(await f(), await f(), await f());
  const ours = await best(() => memoryBus(EVENTS));
  const raw = await best(() => emitter(EVENTS, false));
  const withJson = await best(() => emitter(EVENTS, true));
  const row = (name: string, baseline: number): BenchResult => ({
    name,
    ours: Math.round(ours),
    baseline: Math.round(baseline),
    unit: 'events/s',
    ratio: Number((ours / baseline).toFixed(3)),
  });
  return [
    row(`memory bus publish+consume, 1 group, ${EVENTS} keyed events vs raw EventEmitter`, raw),
    row(
      `memory bus publish+consume, 1 group, ${EVENTS} keyed events vs EventEmitter + JSON round trip`,
      withJson,
    ),
  ];
}

if (require.main === module) {
  run()
    .then((results) => {
      console.table(results);
      console.log(JSON.stringify(results, null, 2));
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
