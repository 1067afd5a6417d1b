import http from 'node:http';
import type { AddressInfo } from 'node:net';
import murmurhash from 'murmurhash';
import type { ChatProvider, ChatRequest, ChatResult } from '@flowplane/llm';
import { LocalHashEmbedder } from '@flowplane/llm';
import { mintToken } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../apps/standalone/src/standalone';
import { LLM_RUNTIME, type LlmRuntime } from '../libs/flow/runtime/src/llm/llm.tokens';
import type { BenchResult } from './bench-result';
import { relaunchedUnderPlatformFlags } from './platform-flags';

/**
 * Issue 8, Performance.
 *
 * 1. Token relay: a streaming provider emits CHUNKS chunks, one every INTERVAL_MS, each carrying
 *    the hrtime at which it was emitted. Ours: svc/llm-chat in a published flow, through the
 *    engine, the run's event channel and the SSE route of flow-runtime (and once more through the
 *    gateway) to a fetch client. Baseline, same process and run: a plain node:http server writing
 *    each chunk of the same provider straight to its SSE response. Per-chunk latency = receive
 *    time minus emit time; reported as p99 (and p50 in the notes). Goal: added p99 <= 1 ms.
 * 2. local-hash embedder throughput on 50-word texts, beside a words-only feature hasher on the
 *    `murmurhash` package (the plainest hashing embedder: no bigrams, no character n-grams).
 */

const CHUNKS = Number(process.env.LLM_BENCH_CHUNKS ?? 200);
const RUNS = Number(process.env.LLM_BENCH_RUNS ?? 10);
const INTERVAL_MS = Number(process.env.LLM_BENCH_INTERVAL_MS ?? 1);
const EMBED_TEXTS = Number(process.env.LLM_BENCH_EMBED_TEXTS ?? 20_000);
const SECRET = 'bench-secret-0123456789abcdef';

/** Emits `CHUNKS` chunks `INTERVAL_MS` apart, each `<emit hrtime ns>;` */
class TimedStreamProvider implements ChatProvider {
  readonly id = 'bench-stream';
  readonly defaultModel = 'bench';
  async chat(request: ChatRequest): Promise<ChatResult> {
    let content = '';
    for (let i = 0; i < CHUNKS; i++) {
      await new Promise((r) => setTimeout(r, INTERVAL_MS));
      const chunk = `${process.hrtime.bigint()};`;
      content += chunk;
      request.onToken?.(chunk);
    }
    return { content, model: 'bench', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: CHUNKS, totalTokens: CHUNKS + 1, source: 'provider' }, latencyMs: 0, attempts: 1 };
  }
}

/** Reads an SSE response and returns, per token event, receive time minus the emit time in its chunk (ms). */
async function latencies(res: Response): Promise<number[]> {
  const out: number[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
    const now = process.hrtime.bigint();
    buffer += decoder.decode(part, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.includes('event: token')) {
        const data = block.split('\n').find((l) => l.startsWith('data: '))!.slice(6);
        const chunk = (JSON.parse(data) as { chunk: string }).chunk;
        out.push(Number(now - BigInt(chunk.slice(0, -1))) / 1e6);
      }
      end = buffer.indexOf('\n\n');
    }
  }
  return out;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function relay(): Promise<BenchResult[]> {
  const platform: Standalone = await startStandalone({ env: { ...process.env, PORT: '0', STORE: 'memory', AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn', GATEWAY_RATE_LIMIT: '0' } });
  const provider = new TimedStreamProvider();
  const baseline = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let index = 0;
    void provider
      .chat({ settings: { providerID: provider.id }, messages: [{ role: 'user', content: 'go' }], onToken: (chunk) => res.write(`id: ${index}\nevent: token\ndata: ${JSON.stringify({ nodeId: 'chat', chunk, index: index++ })}\n\n`) })
      .then(() => res.end());
  });
  try {
    const flowRuntime = platform.services.find((s) => s.name === 'flow-runtime')!;
    flowRuntime.app.get<LlmRuntime>(LLM_RUNTIME).providers.register(provider);
    await new Promise<void>((r) => baseline.listen(0, '127.0.0.1', r));
    const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/`;
    const token = await mintToken(SECRET, { sub: 'bench', perms: ['admin:access'], ttl: '1h' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = async (url: string, body: unknown) => (await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })).json() as Promise<Record<string, string>>;
    const api = `${platform.url}/api/v1`;
    await post(`${api}/flows`, { id: 'relay', name: 'Relay' });
    const v = await post(`${api}/flows/relay/versions`, {
      name: 'Relay',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { providerID: 'bench-stream', stream: true } },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'chat' },
        { id: 'e2', from: 'chat', to: 'end', port: 'Reply', delivery_mode: 'stream' },
      ],
    });
    await post(`${api}/flows/relay/publish`, { versionID: v.versionId });
    const runBody = JSON.stringify({ input: { prompt: 'go' } });
    const viaEngine = (base: string) => fetch(`${base}/api/v1/flows/relay/runs`, { method: 'POST', headers: { ...headers, accept: 'text/event-stream' }, body: runBody });
    const direct = () => fetch(baselineUrl, { headers: { accept: 'text/event-stream' } });

    // Warm-up, then alternate so both see the same machine state.
    await latencies(await viaEngine(flowRuntime.url));
    await latencies(await direct());
    const ours: number[] = [];
    const gateway: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      ours.push(...(await latencies(await viaEngine(flowRuntime.url))));
      base.push(...(await latencies(await direct())));
      gateway.push(...(await latencies(await viaEngine(platform.url))));
    }
    for (const [name, values] of [['engine', ours], ['gateway', gateway], ['direct', base]] as const) {
      if (values.length !== RUNS * CHUNKS) throw new Error(`${name}: ${values.length} chunks received, expected ${RUNS * CHUNKS}`);
    }
    const p99 = (v: number[]) => percentile(v, 99);
    const p50 = (v: number[]) => percentile(v, 50);
    const row = (name: string, values: number[]): BenchResult => {
      const added = p99(values) - p99(base);
      return {
        name,
        ours: Number(p99(values).toFixed(3)),
        baseline: Number(p99(base).toFixed(3)),
        unit: 'ms p99 per chunk',
        ratio: Number((p99(values) / p99(base)).toFixed(3)),
        notes: `added p99 ${added.toFixed(3)} ms (goal <= 1 ms: ${added <= 1 ? 'met' : 'MISSED'}); p50 ${p50(values).toFixed(3)} vs ${p50(base).toFixed(3)} ms; ${RUNS} runs x ${CHUNKS} chunks, ${INTERVAL_MS} ms apart; baseline = provider chunks written straight to an SSE response, same process and run (lower is better)`,
      };
    };
    return [row('llm: token relay provider → engine → flow-runtime SSE vs direct SSE write', ours), row('llm: token relay through the gateway vs direct SSE write', gateway)];
  } finally {
    await new Promise<void>((r) => baseline.close(() => r()));
    await platform.close();
  }
}

const VOCABULARY = 'the flow engine streams tokens from a model through guards and nodes to the client while the ledger records usage and cost per profile provider model and user of every call made by the platform services today'.split(' ');

function texts(n: number): string[] {
  let seed = 42;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, () => Array.from({ length: 50 }, () => VOCABULARY[Math.floor(rand() * VOCABULARY.length)] + (rand() < 0.3 ? 's' : '')).join(' '));
}

/** Words-only feature hashing with the murmurhash package: the plainest hashing embedder. */
function plainHashEmbed(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const w of text.toLowerCase().split(/\W+/)) {
    if (!w) continue;
    const h = murmurhash.v3(w, 1);
    v[h % dim] += h & 0x80000000 ? -1 : 1;
  }
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / n);
}

async function embedder(): Promise<BenchResult> {
  const corpus = texts(EMBED_TEXTS);
  const ours = new LocalHashEmbedder(768);
  const rate = (f: (t: string) => number[]): number => {
    let sink = 0;
    const started = process.hrtime.bigint();
    for (const t of corpus) sink += f(t)[0];
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (Number.isNaN(sink)) throw new Error('bench sink is NaN');
    return corpus.length / seconds;
  };
  rate((t) => ours.embedOne(t));
  rate((t) => plainHashEmbed(t, 768));
  const best = (f: (t: string) => number[]) => Math.max(rate(f), rate(f), rate(f));
  const oursRate = best((t) => ours.embedOne(t));
  const baseRate = best((t) => plainHashEmbed(t, 768));
  return {
    name: 'llm: local-hash embedder, 50-word texts (768 dims) vs words-only murmurhash hashing',
    ours: Math.round(oursRate),
    baseline: Math.round(baseRate),
    unit: 'texts/s',
    ratio: Number((oursRate / baseRate).toFixed(3)),
    notes: `${EMBED_TEXTS} texts per round, best of 3; ours hashes word unigrams, bigrams and character 3- and 4-grams (about 10x the features of the baseline)`,
  };
}

export async function run(): Promise<BenchResult[]> {
  return [...(await relay()), await embedder()];
}

if (require.main === module && !relaunchedUnderPlatformFlags()) {
  run()
    .then((results) => {
      for (const r of results) console.log(`${r.name}: ours ${r.ours} ${r.unit}, baseline ${r.baseline} ${r.unit}, ratio ${r.ratio} (${r.notes})`);
      console.log(JSON.stringify(results, null, 2));
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
