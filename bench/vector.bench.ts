/**
 * Embedded VectorStore benchmark: upsert throughput, single-query QPS and recall@10 against brute
 * force, unfiltered and with a 50 % payload filter, on clustered vectors (Gaussian noise is a
 * worst case real embeddings never look like). Not part of `npm test`.
 *
 *   node tools/build.mjs && node dist/bench/vector.bench.js [points=20000] [dim=384] [queries=200]
 */
import { createEmbeddedVectorStore, type VectorFilter } from '@flowplane/platform/vector';
import { rng } from './seeded-random';

export interface VectorBenchResult {
  points: number;
  dim: number;
  queries: number;
  upsertPointsPerSecond: number;
  queryPerSecond: number;
  recallAt10: number;
  filteredQueryPerSecond: number;
  filteredRecallAt10: number;
}

function clustered(n: number, dim: number, seed: number, centres: number[][]): number[][] {
  const rnd = rng(seed);
  const gauss = (): number => Math.sqrt(-2 * Math.log(rnd() || 1e-12)) * Math.cos(2 * Math.PI * rnd());
  return Array.from({ length: n }, () =>
    centres[Math.floor(rnd() * centres.length)].map((x) => x + 0.35 * gauss()),
  );
}

function normalise(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / norm);
}

function exactTop10(q: number[], unit: number[][], allowed: (i: number) => boolean): Set<number> {
  const qn = normalise(q);
  const scored: Array<[number, number]> = [];
  for (let i = 0; i < unit.length; i++) {
    if (!allowed(i)) continue;
    let dot = 0;
    for (let d = 0; d < qn.length; d++) dot += qn[d] * unit[i][d];
    scored.push([i, dot]);
  }
  return new Set(
    scored
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([i]) => i),
  );
}

/** Runs the benchmark in memory and returns its measurements. */
export async function runVectorBench(points = 20_000, dim = 384, queries = 200): Promise<VectorBenchResult> {
  const centreRnd = rng(1);
  const centres = Array.from({ length: 100 }, () => Array.from({ length: dim }, () => centreRnd() * 2 - 1));
  const vectors = clustered(points, dim, 2, centres);
  const probes = clustered(queries, dim, 3, centres);
  const unit = vectors.map(normalise);
  const store = await createEmbeddedVectorStore();
  await store.createIndex('bench', { dim, distance: 'cosine' });

  const started = performance.now();
  for (let i = 0; i < points; i += 1000) {
    await store.upsert(
      'bench',
      vectors
        .slice(i, i + 1000)
        .map((vector, j) => ({ id: i + j, vector, payload: { even: (i + j) % 2 === 0 } })),
    );
  }
  const upsertPointsPerSecond = points / ((performance.now() - started) / 1000);

  const measure = async (filter: VectorFilter | undefined, allowed: (i: number) => boolean) => {
    const t0 = performance.now();
    const results = [];
    for (const vector of probes) results.push(await store.query('bench', { vector, limit: 10, filter }));
    const qps = queries / ((performance.now() - t0) / 1000);
    let hit = 0;
    results.forEach((hits, q) => {
      const truth = exactTop10(probes[q], unit, allowed);
      hit += hits.filter((h) => truth.has(h.id as number)).length;
    });
    return { qps, recall: hit / (queries * 10) };
  };

  const plain = await measure(undefined, () => true);
  const filtered = await measure({ even: true }, (i) => i % 2 === 0);
  await store.close();
  return {
    points,
    dim,
    queries,
    upsertPointsPerSecond: Math.round(upsertPointsPerSecond),
    queryPerSecond: Math.round(plain.qps),
    recallAt10: Number(plain.recall.toFixed(4)),
    filteredQueryPerSecond: Math.round(filtered.qps),
    filteredRecallAt10: Number(filtered.recall.toFixed(4)),
  };
}

if (require.main === module) {
  const [points, dim, queries] = process.argv.slice(2).map(Number);
  runVectorBench(points || undefined, dim || undefined, queries || undefined).then(
    (result) => {
      console.log(JSON.stringify({ bench: 'vector-embedded', ...result }));
      console.table(result);
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
