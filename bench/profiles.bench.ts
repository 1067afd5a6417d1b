import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LLM_CHAT_KIND, mergeProfile, overridableKeys, ProfileResolver, ServiceClient } from '@flowplane/contracts';
import type { BenchResult } from './bench-result';

/**
 * Issue 3, Performance: a node's effective config from a cached profile, `resolve + mergeProfile`,
 * beside a plain object spread `{...profile, ...node}` of the same values in the same run. The target
 * is 200,000 ops/s for ours. The resolver reads its profile from a real HTTP server once (the
 * profiles service's internal route); every measured op is a cache hit, as on a warm worker.
 */

const OPS = Number(process.env.PROFILES_BENCH_OPS ?? 1_000_000);
const TARGET = 200_000;

const PROFILE = {
  module: 'llm',
  kind: 'llm-chat',
  profileId: 'bench',
  name: 'Bench',
  config: {
    providerID: 'openai',
    apiKey: 'sk-bench-0123456789',
    baseURL: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    temperature: 0.2,
    systemPrompt: 'You are a helpful assistant.',
    maxTokens: 512,
  },
  updatedAt: new Date(0).toISOString(),
};

// A typical svc/llm-chat node: its own prompt, a blank overridable model (defers to the profile), streaming on.
const NODE: Record<string, unknown> = { systemPrompt: 'Answer in French.', model: '', stream: true, replyStyle: 'concise' };
const OVERRIDABLE = overridableKeys(LLM_CHAT_KIND);

function startProfilesServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const ok = req.url === '/internal/profiles/llm/llm-chat/bench';
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? PROFILE : { statusCode: 404 }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Ops/s of `fn` called `ops` times; the sink keeps the results observable so nothing is optimised away. */
async function rate(ops: number, fn: () => Promise<number> | number): Promise<number> {
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) sink += await fn();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (sink !== ops) throw new Error(`bench sink ${sink} != ${ops}: a merge produced the wrong model`);
  return ops / seconds;
}

function rateSync(ops: number, fn: () => number): number {
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) sink += fn();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (sink !== ops) throw new Error(`bench sink ${sink} != ${ops}: a merge produced the wrong model`);
  return ops / seconds;
}

// Each op yields 1 when the merged config is right (the blank node model deferred to the profile).
const check = (merged: Record<string, unknown>): number => (merged.model === 'gpt-4o-mini' && merged.systemPrompt === 'Answer in French.' ? 1 : 0);

/** Runs the profiles benchmark; best of three runs each, after a warm-up. */
export async function run(): Promise<BenchResult[]> {
  const server = await startProfilesServer();
  try {
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const resolver = new ProfileResolver({ client: new ServiceClient({ service: 'profiles', baseUrl }), hostname: 'bench' });
    const held = await resolver.resolve('llm', 'llm-chat', 'bench');

    const ours = async (): Promise<number> => {
      const p = await resolver.resolve('llm', 'llm-chat', 'bench');
      return check(mergeProfile(p.config, NODE, { overridable: OVERRIDABLE }));
    };
    const oursSync = (): number =>
      check(mergeProfile(resolver.resolveCached('llm', 'llm-chat', 'bench')!.config, NODE, { overridable: OVERRIDABLE }));
    // The baseline has no cache lookup and no overridable rule: the profile is already in hand, and a
    // blank node value would simply win, so it is given the node without the blank key.
    const { model: _blank, ...nodeForSpread } = NODE;
    const spread = (): number => check({ ...held.config, ...nodeForSpread });

    await rate(50_000, ours);
    rateSync(50_000, oursSync);
    rateSync(50_000, spread);
    const best = async (f: () => Promise<number> | number): Promise<number> => Math.max(await f(), await f(), await f());
    const asyncRate = await best(() => rate(OPS, ours));
    const syncRate = await best(() => rateSync(OPS, oursSync));
    const spreadRate = await best(() => rateSync(OPS, spread));
    const stats = resolver.stats();
    if (stats.fetches !== 1) throw new Error(`expected one read from the profiles service, saw ${stats.fetches}`);

    const row = (name: string, value: number): BenchResult => ({
      name,
      ours: Math.round(value),
      baseline: Math.round(spreadRate),
      unit: 'ops/s',
      ratio: Number((value / spreadRate).toFixed(3)),
      notes: `target >= ${TARGET} ops/s: ${value >= TARGET ? 'met' : 'MISSED'}; ${OPS} ops per round, best of 3`,
    });
    return [
      row('profiles: await resolve (cached) + mergeProfile vs {...profile, ...node}', asyncRate),
      row('profiles: resolveCached + mergeProfile vs {...profile, ...node}', syncRate),
    ];
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

if (require.main === module) {
  run()
    .then((results) => {
      for (const r of results) {
        console.log(`${r.name}: ours ${r.ours} ${r.unit}, spread ${r.baseline} ${r.unit}, ratio ${r.ratio} (${r.notes})`);
      }
      console.log(JSON.stringify(results, null, 2));
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
