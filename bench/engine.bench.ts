import { compileFlow, FlowEngine, NodeRegistry, type NodeManifest } from '@flowplane/flow/engine';
import type { FlowDocument } from '@flowplane/flow/ir';
import type { BenchResult } from './bench-result';

/**
 * Issue 4, Performance: the flow engine alone, in process, running a 3-node flow (start,
 * template-render, end), beside an async function chain doing the same work (three awaited async
 * calls with the same render function). Target: >= 20,000 runs/s. Runs go in batches of
 * `CONCURRENCY` in flight, for ours and for the baseline alike.
 */

const RUNS = Number(process.env.ENGINE_BENCH_RUNS ?? 200_000);
const CONCURRENCY = Number(process.env.ENGINE_BENCH_CONCURRENCY ?? 64);
const TARGET = 20_000;

const TEMPLATE = 'Hello {{name}}, you asked: {{question}}';

// A template-render-like node: `{{path}}` placeholders filled from the packet, the template
// compiled once per distinct string (as svc/template-render caches it).
type Part = string | { key: string };
const compiled = new Map<string, Part[]>();
function compileTemplate(template: string): Part[] {
  let parts = compiled.get(template);
  if (!parts) {
    parts = [];
    const re = /\{\{\s*([\w.]+)\s*\}\}/g;
    let last = 0;
    for (let m = re.exec(template); m; m = re.exec(template)) {
      if (m.index > last) parts.push(template.slice(last, m.index));
      parts.push({ key: m[1] });
      last = m.index + m[0].length;
    }
    if (last < template.length) parts.push(template.slice(last));
    compiled.set(template, parts);
  }
  return parts;
}
function render(template: string, packet: Record<string, unknown>): string {
  let out = '';
  for (const p of compileTemplate(template)) out += typeof p === 'string' ? p : String(packet[p.key] ?? '');
  return out;
}

const manifest: NodeManifest = {
  id: 'bench/template-render',
  name: 'Template render',
  kind: 'action',
  settingsSchema: { type: 'object', properties: { template: { type: 'string' }, field: { type: 'string', default: 'text' } } },
  inputs: [{ port: 'in' }],
  outputs: [{ port: 'out' }],
};

const document: FlowDocument = {
  nodes: [
    { id: 'start', kind: 'start' },
    { id: 'render', kind: 'action', action_ref: 'bench/template-render', config: { template: TEMPLATE } },
    { id: 'end', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'render' },
    { id: 'e2', from: 'render', to: 'end' },
  ],
};

const INPUT = { name: 'Ada', question: 'how fast is the engine?' };
const EXPECTED = 'Hello Ada, you asked: how fast is the engine?';

/** Runs/s of `runOne` called `runs` times, `CONCURRENCY` in flight; each call yields 1 when its output is right. */
async function rate(runs: number, runOne: () => Promise<number>): Promise<number> {
  let sink = 0;
  const batch = new Array<Promise<number>>(CONCURRENCY);
  const started = process.hrtime.bigint();
  for (let done = 0; done < runs; done += CONCURRENCY) {
    const n = Math.min(CONCURRENCY, runs - done);
    for (let i = 0; i < n; i++) batch[i] = runOne();
    for (let i = 0; i < n; i++) sink += await batch[i];
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (sink !== runs) throw new Error(`bench sink ${sink} != ${runs}: a run produced the wrong output`);
  return runs / seconds;
}

/** Runs the engine benchmark; best of three rounds each, after a warm-up. */
export async function run(): Promise<BenchResult[]> {
  const registry = new NodeRegistry().define(manifest, (ctx) => {
    const packet = ctx.input as Record<string, unknown>;
    return { port: 'out', packet: { ...packet, [ctx.config.field as string]: render(ctx.config.template as string, packet) } };
  });
  const flow = compileFlow(document, registry);

  const engine = new FlowEngine();
  let events = 0;
  const listened = new FlowEngine({ onEvent: () => void events++ });
  const check = (output: unknown): number => ((output as { text?: string } | undefined)?.text === EXPECTED ? 1 : 0);
  const ours = async (): Promise<number> => check((await engine.start(flow, INPUT).done).output);
  const oursListened = async (): Promise<number> => check((await listened.start(flow, INPUT).done).output);

  // The baseline: the same work as three awaited async functions, no engine.
  const startFn = async (input: Record<string, unknown>): Promise<Record<string, unknown>> => input;
  const renderFn = async (packet: Record<string, unknown>): Promise<Record<string, unknown>> => ({ ...packet, text: render(TEMPLATE, packet) });
  const endFn = async (packet: Record<string, unknown>): Promise<Record<string, unknown>> => packet;
  const chain = async (): Promise<number> => check(await endFn(await renderFn(await startFn(INPUT))));

  await rate(20_000, ours);
  await rate(20_000, oursListened);
  await rate(20_000, chain);
  const best = async (f: () => Promise<number>): Promise<number> => Math.max(await f(), await f(), await f());
  const oursRate = await best(() => rate(RUNS, ours));
  const listenedRate = await best(() => rate(RUNS, oursListened));
  const chainRate = await best(() => rate(RUNS, chain));
  const perRun = events / (20_000 + 3 * RUNS);

  const row = (name: string, value: number, extra: string): BenchResult => ({
    name,
    ours: Math.round(value),
    baseline: Math.round(chainRate),
    unit: 'runs/s',
    ratio: Number((value / chainRate).toFixed(4)),
    notes: `target >= ${TARGET} runs/s: ${value >= TARGET ? 'met' : 'MISSED'}; ${RUNS} runs per round, ${CONCURRENCY} in flight, best of 3; baseline = async function chain start→render→end${extra}`,
  });
  return [
    row('engine: 3-node flow (start → template-render → end) vs async function chain', oursRate, ''),
    row('engine: same flow with a run-event listener vs async function chain', listenedRate, `; ${perRun.toFixed(0)} events per run`),
  ];
}

if (require.main === module) {
  run()
    .then((results) => {
      for (const r of results) {
        console.log(`${r.name}: ours ${r.ours} ${r.unit}, baseline ${r.baseline} ${r.unit}, ratio ${r.ratio} (${r.notes})`);
      }
      console.log(JSON.stringify(results, null, 2));
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
