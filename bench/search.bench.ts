/**
 * Search benchmark (issue 9): the embedded backend on 100,000 x 384 clustered synthetic vectors
 * (seeded), with brute-force ground truth computed in the same run.
 *
 * Reports build time, recall@10 / QPS / p99 at several search depths (HNSW ef) beside the
 * brute-force QPS, and the cost of the HTTP path: the same query through the gateway and the
 * search service versus a direct VectorStore call. Single-threaded, sequential queries.
 * Not part of `npm test`:
 *
 *   node tools/build.mjs && node dist/bench/search.bench.js [points=100000] [dim=384] [queries=300]
 */
import { gatewayDefinition } from '@flowplane/gateway';
import { mintToken } from '@flowplane/platform/auth';
import { startService } from '@flowplane/platform/service';
import { createEmbeddedVectorStore, type VectorStore } from '@flowplane/platform/vector';
import { searchDefinition } from '@flowplane/search';
import type { BenchResult } from './bench-result';
import { rng } from './seeded-random';
import { relaunchedUnderPlatformFlags } from './platform-flags';

const SEED = 20240609;
const CLUSTERS = 200;
const EFS = [16, 32, 64, 128, 256];
const K = 10;

/** `n` clustered vectors (and `q` held-out queries from the same clusters), L2-normalised, in one Float32Array each. */
function dataset(n: number, q: number, dim: number): { base: Float32Array; queries: Float32Array } {
  const rnd = rng(SEED);
  const gauss = (): number => Math.sqrt(-2 * Math.log(rnd() || 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const centres = Array.from({ length: CLUSTERS }, () => Float32Array.from({ length: dim }, gauss));
  const fill = (count: number): Float32Array => {
    const out = new Float32Array(count * dim);
    for (let i = 0; i < count; i++) {
      const c = centres[Math.floor(rnd() * CLUSTERS)];
      let norm = 0;
      for (let d = 0; d < dim; d++) {
        const x = c[d] + 0.35 * gauss();
        out[i * dim + d] = x;
        norm += x * x;
      }
      norm = Math.sqrt(norm);
      for (let d = 0; d < dim; d++) out[i * dim + d] /= norm;
    }
    return out;
  };
  return { base: fill(n), queries: fill(q) };
}

const row = (m: Float32Array, i: number, dim: number): number[] => Array.from(m.subarray(i * dim, (i + 1) * dim));

/** Exact top-k by cosine (the vectors are unit length, so the dot product) over the whole base. */
function bruteForce(base: Float32Array, n: number, dim: number, q: Float32Array, qi: number, k: number): number[] {
  const best = new Float64Array(k).fill(-Infinity);
  const ids = new Int32Array(k).fill(-1);
  const off = qi * dim;
  for (let i = 0; i < n; i++) {
    let dot = 0;
    const b = i * dim;
    for (let d = 0; d < dim; d++) dot += base[b + d] * q[off + d];
    if (dot <= best[k - 1]) continue;
    let j = k - 1;
    while (j > 0 && best[j - 1] < dot) {
      best[j] = best[j - 1];
      ids[j] = ids[j - 1];
      j--;
    }
    best[j] = dot;
    ids[j] = i;
  }
  return Array.from(ids);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

interface Timing {
  qps: number;
  p50: number;
  p99: number;
}

async function timeQueries(count: number, one: (i: number) => Promise<unknown> | unknown): Promise<Timing> {
  const lat: number[] = [];
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    await one(i);
    lat.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  lat.sort((a, b) => a - b);
  return { qps: count / seconds, p50: percentile(lat, 50), p99: percentile(lat, 99) };
}

export async function run(argv: string[] = []): Promise<BenchResult[]> {
  const n = Number(argv[0] ?? process.env.SEARCH_BENCH_POINTS ?? 100_000);
  const dim = Number(argv[1] ?? process.env.SEARCH_BENCH_DIM ?? 384);
  const nq = Number(argv[2] ?? process.env.SEARCH_BENCH_QUERIES ?? 300);
  const log = (s: string) => process.stdout.write(`${s}\n`);
  log(`search bench: ${n} x ${dim} clustered vectors (${CLUSTERS} clusters, seed ${SEED}), ${nq} queries, k=${K}`);
  const { base, queries } = dataset(n, nq, dim);

  // Ground truth and the brute-force baseline in one pass.
  const truth: number[][] = [];
  const brute = await timeQueries(nq, (i) => truth.push(bruteForce(base, n, dim, queries, i, K)));
  log(`brute force: ${brute.qps.toFixed(1)} QPS, p99 ${brute.p99.toFixed(1)} ms`);

  const store: VectorStore = await createEmbeddedVectorStore();
  const index = 'svc_bench';
  await store.createIndex(index, { dim, distance: 'cosine' });
  const buildStart = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1000) {
    const points = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) points.push({ id: j, vector: row(base, j, dim), payload: { n: j } });
    await store.upsert(index, points);
  }
  const buildSeconds = Number(process.hrtime.bigint() - buildStart) / 1e9;
  log(`build: ${buildSeconds.toFixed(1)} s (${Math.round(n / buildSeconds)} points/s; M=16, efConstruction=200)`);

  const qv = Array.from({ length: nq }, (_, i) => row(queries, i, dim));
  const results: BenchResult[] = [];
  const table: Array<Record<string, string | number>> = [
    { method: 'brute force', ef: '-', 'recall@10': '1.0000', QPS: Math.round(brute.qps), 'p50 ms': brute.p50.toFixed(3), 'p99 ms': brute.p99.toFixed(3), 'x brute': '1.0' },
  ];
  for (const ef of EFS) {
    let hit = 0;
    await timeQueries(Math.min(50, nq), (i) => store.query(index, { vector: qv[i], limit: K, ef })); // warm-up
    const t = await timeQueries(nq, async (i) => {
      const hits = await store.query(index, { vector: qv[i], limit: K, ef });
      const want = new Set(truth[i]);
      for (const h of hits) if (want.has(h.id as number)) hit++;
    });
    const recall = hit / (nq * K);
    table.push({ method: 'hnsw (embedded)', ef, 'recall@10': recall.toFixed(4), QPS: Math.round(t.qps), 'p50 ms': t.p50.toFixed(3), 'p99 ms': t.p99.toFixed(3), 'x brute': (t.qps / brute.qps).toFixed(1) });
    results.push({ name: `search recall@10 ef=${ef}`, ours: recall * 100, baseline: 100, unit: '% recall@10 vs brute force', ratio: recall });
    results.push({ name: `search QPS ef=${ef}`, ours: t.qps, baseline: brute.qps, unit: 'queries/s (baseline: brute force)', ratio: t.qps / brute.qps, notes: `p99 ${t.p99.toFixed(3)} ms` });
  }
  console.table(table);

  // A small collection (at most exactSearchThreshold points) is answered by an exact scan: the
  // same scan over a plain Float32Array is the baseline.
  const small = Math.min(1000, n);
  const smallIndex = 'svc_bench_small';
  await store.createIndex(smallIndex, { dim, distance: 'cosine' });
  await store.upsert(smallIndex, Array.from({ length: small }, (_, j) => ({ id: j, vector: row(base, j, dim) })));
  await timeQueries(Math.min(50, nq), (i) => store.query(smallIndex, { vector: qv[i], limit: K }));
  const exactBaseline = await timeQueries(nq, (i) => bruteForce(base, small, dim, queries, i, K));
  const exact = await timeQueries(nq, (i) => store.query(smallIndex, { vector: qv[i], limit: K }));
  log(`small collection (${small} points, exact scan): ${Math.round(exact.qps)} QPS against ${Math.round(exactBaseline.qps)} for a Float32Array scan`);
  results.push({ name: `search exact scan (${small} points)`, ours: exact.qps, baseline: exactBaseline.qps, unit: 'queries/s (baseline: Float32Array scan)', ratio: exact.qps / exactBaseline.qps, notes: `p99 ${exact.p99.toFixed(3)} ms` });

  results.push({ name: 'search build (100k x 384)', ours: n / buildSeconds, baseline: n / buildSeconds, unit: 'points/s inserted', ratio: 1, notes: `${buildSeconds.toFixed(1)} s` });

  // HTTP path: gateway -> search service -> the same store, against a direct store call, ef 64 (the default).
  const secret = 'search-bench-secret-0123456789abcdef';
  const env = { PORT: '0', STORE: 'memory', AUTH_JWT_SECRET: secret, LOG_LEVEL: 'silent', SEARCH_REGISTER_NODES: 'false', PROFILES_URL: 'http://127.0.0.1:1', SEARCH_INDEX_PREFIX: 'svc_' };
  const search = await startService(searchDefinition, { env, vector: store });
  const gateway = await startService(gatewayDefinition, { env: { ...env, SEARCH_URL: search.url } });
  try {
    const bearer = await mintToken(secret, { sub: 'bench', perms: [] });
    const url = `http://127.0.0.1:${gateway.port}/api/v1/search/indexes/bench/query`;
    const viaHttp = (i: number) =>
      fetch(url, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ vector: qv[i % nq], limit: K }) }).then(async (r) => {
        if (r.status !== 200) throw new Error(`query answered ${r.status}: ${await r.text()}`);
        return r.json();
      });
    await timeQueries(100, viaHttp);
    const direct = await timeQueries(nq, (i) => store.query(index, { vector: qv[i], limit: K }));
    const http = await timeQueries(nq, viaHttp);
    console.table([
      { path: 'direct VectorStore.query', QPS: Math.round(direct.qps), 'p50 ms': direct.p50.toFixed(3), 'p99 ms': direct.p99.toFixed(3) },
      { path: 'HTTP via gateway + search', QPS: Math.round(http.qps), 'p50 ms': http.p50.toFixed(3), 'p99 ms': http.p99.toFixed(3) },
    ]);
    results.push({ name: 'search query via gateway (HTTP)', ours: http.qps, baseline: direct.qps, unit: 'queries/s (baseline: direct library call)', ratio: http.qps / direct.qps, notes: `p99 ${http.p99.toFixed(3)} ms vs ${direct.p99.toFixed(3)} ms` });
  } finally {
    await gateway.close();
    await search.close();
  }
  return results;
}

if (require.main === module && !relaunchedUnderPlatformFlags()) {
  void run(process.argv.slice(2)).then(
    (rows) => console.table(rows.map((r) => ({ benchmark: r.name, ours: r.ours.toFixed(2), baseline: r.baseline.toFixed(2), unit: r.unit, ratio: r.ratio.toFixed(3), notes: r.notes ?? '' }))),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
