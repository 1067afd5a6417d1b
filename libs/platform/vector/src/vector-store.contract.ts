/**
 * The one contract every VectorStore adapter passes (ARCHITECTURE §2, §7). Call it inside a
 * `describe`; `vector-store.contract.spec.ts` runs it against each available adapter. Index names
 * get a per-run prefix so runs against a shared Qdrant never collide, and are deleted afterwards.
 */
import { haversineMetres } from './vector-filter.compiler';
import { pointIdFromKey } from './vector-input.validator';
import { scrollPages } from './vector-scroll.util';
import {
  VectorDimensionError,
  VectorFilterError,
  VectorIndexConflictError,
  VectorIndexNotFoundError,
  VectorValidationError,
} from './vector-store.errors';
import type { VectorFilter, VectorHit, VectorPoint, VectorPointId, VectorStore } from './vector-store.port';

export interface VectorStoreContractTarget {
  /** Opens a store over the target's backing data: the same directory or server on every call. */
  open(): Promise<VectorStore>;
  /** True when data survives close() and a new open() (persisted embedded, Qdrant). */
  durable: boolean;
}

/** Deterministic PRNG (mulberry32) so failures reproduce. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(rnd() || 1e-12)) * Math.cos(2 * Math.PI * rnd());
}

/**
 * Clustered vectors, like real embeddings (pure Gaussian noise is a worst case no ANN index is
 * tuned for, see notes/infra-facts.md): `clusters` random centres, points scattered around them.
 */
export function clusteredVectors(
  n: number,
  dim: number,
  clusters: number,
  seed: number,
): { vectors: number[][]; cluster: number[] } {
  const rnd = seededRandom(seed);
  const centres = Array.from({ length: clusters }, () => Array.from({ length: dim }, () => gaussian(rnd)));
  const vectors: number[][] = [];
  const cluster: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = Math.floor(rnd() * clusters);
    cluster.push(c);
    vectors.push(centres[c].map((x) => x + 0.35 * gaussian(rnd)));
  }
  return { vectors, cluster };
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

/** Exact top-k ids by cosine similarity among `candidates` (indexes into `vectors`). */
function bruteForceTopK(query: number[], vectors: number[][], k: number, candidates?: number[]): number[] {
  const pool = candidates ?? vectors.map((_, i) => i);
  return pool
    .map((i) => ({ i, s: cosine(query, vectors[i]) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.i);
}

function recall(found: VectorPointId[], expected: number[]): number {
  const want = new Set<VectorPointId>(expected);
  return found.filter((id) => want.has(id)).length / expected.length;
}

async function scrollAll(
  store: VectorStore,
  index: string,
  pageSize: number,
  filter?: VectorFilter,
): Promise<VectorPointId[]> {
  const ids: VectorPointId[] = [];
  let offset: VectorPointId | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await store.scroll(index, { limit: pageSize, offset, filter, withPayload: false });
    ids.push(...page.points.map((p) => p.id));
    if (page.nextOffset === null) return ids;
    offset = page.nextOffset;
  }
  throw new Error('scroll did not terminate');
}

function sortedIds(ids: VectorPointId[]): string[] {
  return ids.map(String).sort();
}

/** Registers the VectorStore contract tests for one adapter. */
export function vectorStoreContract(target: VectorStoreContractTarget): void {
  let store: VectorStore;
  const prefix = `vc_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}_`;
  const used = new Set<string>();
  const indexName = (suffix: string): string => {
    const name = `${prefix}${suffix}`;
    used.add(name);
    return name;
  };

  beforeAll(async () => {
    store = await target.open();
  });

  afterAll(async () => {
    if (!store) return;
    for (const name of used) await store.deleteIndex(name).catch(() => undefined);
    await store.close();
  });

  it('answers ping when usable', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  describe('indexes', () => {
    it('creates an index idempotently and reports its metadata', async () => {
      const name = indexName('create');
      await store.createIndex(name, { dim: 8, distance: 'cosine' });
      await store.createIndex(name, { dim: 8, distance: 'cosine' });
      expect(await store.getIndex(name)).toEqual({ name, dim: 8, distance: 'cosine', count: 0 });
      const listed = (await store.listIndexes()).filter((i) => i.name.startsWith(prefix));
      expect(listed).toContainEqual({ name, dim: 8, distance: 'cosine', count: 0 });
    });

    it('rejects re-creating an index with another dimension or distance (400)', async () => {
      const name = indexName('conflict');
      await store.createIndex(name, { dim: 8, distance: 'cosine' });
      const otherDim = store.createIndex(name, { dim: 16, distance: 'cosine' });
      await expect(otherDim).rejects.toBeInstanceOf(VectorIndexConflictError);
      await expect(store.createIndex(name, { dim: 8, distance: 'euclid' })).rejects.toMatchObject({
        status: 400,
      });
      expect(await store.getIndex(name)).toMatchObject({ dim: 8, distance: 'cosine' });
    });

    it('deletes an index with its points, and reports whether it existed', async () => {
      const name = indexName('drop');
      await store.createIndex(name, { dim: 4, distance: 'dot' });
      await store.upsert(name, [{ id: 1, vector: [1, 2, 3, 4] }]);
      expect(await store.deleteIndex(name)).toBe(true);
      expect(await store.getIndex(name)).toBeNull();
      expect((await store.listIndexes()).map((i) => i.name)).not.toContain(name);
      expect(await store.deleteIndex(name)).toBe(false);
      // The name is free again, with new parameters and no old points.
      await store.createIndex(name, { dim: 2, distance: 'euclid' });
      expect(await store.getIndex(name)).toEqual({ name, dim: 2, distance: 'euclid', count: 0 });
    });

    it('reports a missing index as null metadata and 404 on point operations', async () => {
      const name = indexName('missing');
      expect(await store.getIndex(name)).toBeNull();
      const calls = [
        store.upsert(name, [{ id: 1, vector: [1, 0] }]),
        store.delete(name, [1]),
        store.query(name, { vector: [1, 0], limit: 3 }),
        store.scroll(name, { limit: 10 }),
      ];
      for (const call of calls) {
        await expect(call).rejects.toBeInstanceOf(VectorIndexNotFoundError);
        await expect(call).rejects.toMatchObject({ status: 404 });
      }
    });

    it('rejects invalid index names and parameters', async () => {
      await expect(store.createIndex('../escape', { dim: 4, distance: 'cosine' })).rejects.toBeInstanceOf(
        VectorValidationError,
      );
      await expect(
        store.createIndex(indexName('bad_dim'), { dim: 0, distance: 'cosine' }),
      ).rejects.toBeInstanceOf(VectorValidationError);
      await expect(
        store.createIndex(indexName('bad_distance'), { dim: 4, distance: 'manhattan' as 'cosine' }),
      ).rejects.toBeInstanceOf(VectorValidationError);
    });
  });

  describe('points', () => {
    it('rejects vectors of the wrong dimension without writing any point of the batch', async () => {
      const name = indexName('dims');
      await store.createIndex(name, { dim: 3, distance: 'cosine' });
      const bad = store.upsert(name, [
        { id: 1, vector: [1, 0, 0] },
        { id: 2, vector: [1, 0] },
      ]);
      await expect(bad).rejects.toBeInstanceOf(VectorDimensionError);
      await expect(bad).rejects.toMatchObject({ status: 400, expected: 3, actual: 2 });
      expect((await store.getIndex(name))?.count).toBe(0);
      await store.upsert(name, [{ id: 1, vector: [1, 0, 0] }]);
      await expect(store.query(name, { vector: [1, 0, 0, 0], limit: 1 })).rejects.toBeInstanceOf(
        VectorDimensionError,
      );
    });

    it('accepts unsigned integer and UUID ids only, returning UUIDs lower-cased', async () => {
      const name = indexName('ids');
      await store.createIndex(name, { dim: 2, distance: 'euclid' });
      const uuid = '7E57D004-2B97-4E7A-B45F-5387367791CD';
      await store.upsert(name, [
        { id: 42, vector: [0, 0] },
        { id: uuid, vector: [1, 1] },
      ]);
      const hits = await store.query(name, { vector: [1, 1], limit: 2 });
      expect(hits.map((h) => h.id)).toEqual([uuid.toLowerCase(), 42]);
      for (const id of ['doc-1', -1, 1.5, ''] as VectorPointId[]) {
        await expect(store.upsert(name, [{ id, vector: [0, 0] }])).rejects.toBeInstanceOf(
          VectorValidationError,
        );
      }
      expect((await store.getIndex(name))?.count).toBe(2);
    });

    it('scores cosine as similarity, dot as dot product and euclid as distance, best first', async () => {
      const cos = indexName('score_cos');
      await store.createIndex(cos, { dim: 2, distance: 'cosine' });
      await store.upsert(cos, [
        { id: 1, vector: [1, 0] },
        { id: 2, vector: [0, 1] },
        { id: 3, vector: [1, 1] },
      ]);
      const cosHits = await store.query(cos, { vector: [2, 0], limit: 3 });
      expect(cosHits.map((h) => h.id)).toEqual([1, 3, 2]);
      expect(cosHits.map((h) => h.score)).toEqual([
        expect.closeTo(1, 4),
        expect.closeTo(Math.SQRT1_2, 4),
        expect.closeTo(0, 4),
      ]);

      const dot = indexName('score_dot');
      await store.createIndex(dot, { dim: 2, distance: 'dot' });
      await store.upsert(dot, [
        { id: 1, vector: [1, 0] },
        { id: 2, vector: [3, 0] },
        { id: 3, vector: [0, 5] },
      ]);
      const dotHits = await store.query(dot, { vector: [2, 1], limit: 3 });
      expect(dotHits.map((h) => h.id)).toEqual([2, 3, 1]);
      expect(dotHits.map((h) => h.score)).toEqual([
        expect.closeTo(6, 4),
        expect.closeTo(5, 4),
        expect.closeTo(2, 4),
      ]);

      const euc = indexName('score_euclid');
      await store.createIndex(euc, { dim: 2, distance: 'euclid' });
      await store.upsert(euc, [
        { id: 1, vector: [0, 0] },
        { id: 2, vector: [3, 4] },
        { id: 3, vector: [1, 0] },
      ]);
      const eucHits = await store.query(euc, { vector: [0, 0], limit: 2 });
      expect(eucHits.map((h) => h.id)).toEqual([1, 3]);
      expect(eucHits.map((h) => h.score)).toEqual([expect.closeTo(0, 4), expect.closeTo(1, 4)]);
    });

    it('overwrites vector and payload on upsert of an existing id', async () => {
      const name = indexName('overwrite');
      await store.createIndex(name, { dim: 4, distance: 'cosine' });
      await store.upsert(name, [
        { id: 1, vector: [1, 0, 0, 0], payload: { version: 1, tag: 'old' } },
        { id: 2, vector: [0, 1, 0, 0], payload: { version: 1 } },
      ]);
      // Queried before the overwrite (an adapter that keeps vectors beside its index must drop them).
      expect((await store.query(name, { vector: [1, 0, 0, 0], limit: 1 }))[0]).toMatchObject({ id: 1, score: expect.closeTo(1, 4) });
      await store.upsert(name, [{ id: 1, vector: [0, 0, 1, 0], payload: { version: 2 } }]);
      expect((await store.getIndex(name))?.count).toBe(2);

      const [top] = await store.query(name, { vector: [0, 0, 1, 0], limit: 1 });
      expect(top).toEqual({ id: 1, score: expect.closeTo(1, 4), payload: { version: 2 } });
      const nearOld = await store.query(name, { vector: [1, 0, 0, 0], limit: 2 });
      expect(nearOld.every((h) => h.score < 0.5)).toBe(true);
      expect(await store.query(name, { vector: [1, 0, 0, 0], limit: 5, filter: { tag: 'old' } })).toEqual([]);

      // An upsert without payload clears it, as in Qdrant.
      await store.upsert(name, [{ id: 2, vector: [0, 1, 0, 0] }]);
      const page = await store.scroll(name, { limit: 10, withVectors: true });
      expect(page.points).toEqual([
        {
          id: 1,
          payload: { version: 2 },
          vector: [expect.closeTo(0, 5), expect.closeTo(0, 5), expect.closeTo(1, 5), expect.closeTo(0, 5)],
        },
        {
          id: 2,
          payload: {},
          vector: [expect.closeTo(0, 5), expect.closeTo(1, 5), expect.closeTo(0, 5), expect.closeTo(0, 5)],
        },
      ]);
    });

    it('keeps the last version when one batch repeats an id', async () => {
      const name = indexName('repeat');
      await store.createIndex(name, { dim: 2, distance: 'cosine' });
      await store.upsert(name, [
        { id: 9, vector: [1, 0], payload: { v: 1 } },
        { id: 9, vector: [0, 1], payload: { v: 2 } },
      ]);
      expect((await store.getIndex(name))?.count).toBe(1);
      expect(await store.query(name, { vector: [0, 1], limit: 5 })).toEqual([
        { id: 9, score: expect.closeTo(1, 4), payload: { v: 2 } },
      ]);
    });

    it('deletes points by id and ignores unknown ids', async () => {
      const name = indexName('delete');
      await store.createIndex(name, { dim: 2, distance: 'euclid' });
      await store.upsert(
        name,
        Array.from({ length: 20 }, (_, i) => ({ id: i, vector: [i, 0], payload: { i } })),
      );
      await store.delete(name, [3, 4, 5, 999]);
      expect((await store.getIndex(name))?.count).toBe(17);
      const hits = await store.query(name, { vector: [4.1, 0], limit: 3 });
      expect(hits.map((h) => h.id)).toEqual([6, 2, 7]);
      expect(await scrollAll(store, name, 7)).not.toEqual(expect.arrayContaining([3]));
      // A deleted id can come back.
      await store.upsert(name, [{ id: 4, vector: [4, 0], payload: { back: true } }]);
      expect((await store.query(name, { vector: [4, 0], limit: 1 }))[0]).toEqual({
        id: 4,
        score: expect.closeTo(0, 4),
        payload: { back: true },
      });
    });

    it('scrolls every point exactly once, integers before UUIDs, each in order', async () => {
      const name = indexName('scroll');
      await store.createIndex(name, { dim: 3, distance: 'dot' });
      const points: VectorPoint[] = [];
      for (let i = 0; i < 150; i++)
        points.push({ id: i * 7, vector: [i, 1, 0], payload: { kind: i % 3 === 0 ? 'a' : 'b' } });
      for (let i = 0; i < 100; i++)
        points.push({ id: pointIdFromKey(`doc-${i}`), vector: [0, 1, i], payload: { kind: 'u' } });
      for (let i = 0; i < points.length; i += 60) await store.upsert(name, points.slice(i, i + 60));

      const ids = await scrollAll(store, name, 40);
      expect(ids).toHaveLength(250);
      expect(new Set(ids).size).toBe(250);
      expect(sortedIds(ids)).toEqual(sortedIds(points.map((p) => p.id)));
      const numbers = ids.filter((id): id is number => typeof id === 'number');
      const uuids = ids.filter((id): id is string => typeof id === 'string');
      expect(ids).toEqual([...numbers, ...uuids]);
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      expect(uuids).toEqual([...uuids].sort());

      const filtered = await scrollAll(store, name, 9, { kind: 'a' });
      expect(filtered).toEqual(Array.from({ length: 50 }, (_, i) => i * 21));

      const first = await store.scroll(name, { limit: 2, withVectors: true });
      expect(first.points).toEqual([
        { id: 0, payload: { kind: 'a' }, vector: [0, 1, 0] },
        { id: 7, payload: { kind: 'b' }, vector: [1, 1, 0] },
      ]);
      expect(first.nextOffset).toBe(14);
      const last = await store.scroll(name, { limit: 300 });
      expect(last.points).toHaveLength(250);
      expect(last.nextOffset).toBeNull();
    });
  });

  describe('nearest neighbours and filters on 3,000 clustered vectors', () => {
    const N = 3000;
    const DIM = 32;
    const data = clusteredVectors(N, DIM, 30, 7);
    const queries = clusteredVectors(40, DIM, 30, 7 + 1).vectors;
    const payloadOf = (i: number): Record<string, unknown> => ({
      cluster: data.cluster[i],
      group: i % 50,
      rank: i,
      weight: (i % 4) * 0.25 + 0.125,
      tags: [`c${data.cluster[i]}`, i % 3 === 0 ? 'fizz' : 'plain'],
      meta: { parity: i % 2 === 0 ? 'even' : 'odd', deep: { lang: i % 5 === 0 ? 'de' : 'en' } },
      // A 60 x 50 grid of geo points 0.1 degree apart (about 11 km) around the equator.
      loc: { lon: (i % 60) / 10, lat: (Math.floor(i / 60) % 50) / 10 - 2.5 },
    });
    const locOf = (i: number) => payloadOf(i).loc as { lon: number; lat: number };
    const CENTRE = { lon: 3.04, lat: 0.02 };
    /** Points within `radius` metres of CENTRE; none lies within 0.1% of the edge, so backends' rounding cannot disagree. */
    const within = (radius: number) => {
      for (let i = 0; i < N; i++) {
        const d = haversineMetres(CENTRE, locOf(i));
        if (Math.abs(d - radius) < radius / 1000) throw new Error(`point ${i} lies ${d} m from the centre, too near the ${radius} m edge`);
      }
      return (i: number) => haversineMetres(CENTRE, locOf(i)) <= radius;
    };
    const matching = (pred: (i: number) => boolean): number[] => data.vectors.map((_, i) => i).filter(pred);
    let name: string;

    beforeAll(async () => {
      name = indexName('ann');
      await store.createIndex(name, { dim: DIM, distance: 'cosine' });
      for (let i = 0; i < N; i += 500) {
        await store.upsert(
          name,
          data.vectors
            .slice(i, i + 500)
            .map((vector, j) => ({ id: i + j, vector, payload: payloadOf(i + j) })),
        );
      }
    });

    it('finds the true nearest neighbours (recall@10 >= 0.95 against brute force)', async () => {
      expect((await store.getIndex(name))?.count).toBe(N);
      let total = 0;
      for (const q of queries) {
        const hits = await store.query(name, { vector: q, limit: 10 });
        expect(hits).toHaveLength(10);
        for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
        total += recall(
          hits.map((h) => h.id),
          bruteForceTopK(q, data.vectors, 10),
        );
      }
      expect(total / queries.length).toBeGreaterThanOrEqual(0.95);
    });

    it('returns payloads with hits', async () => {
      const [hit] = await store.query(name, { vector: data.vectors[123], limit: 1 });
      expect(hit).toEqual({ id: 123, score: expect.closeTo(1, 3), payload: payloadOf(123) });
    });

    it('returns `limit` nearest matches for a selective equality filter', async () => {
      const allowed = matching((i) => i % 50 === 7);
      let total = 0;
      for (const q of queries.slice(0, 10)) {
        const hits: VectorHit[] = await store.query(name, { vector: q, limit: 10, filter: { group: 7 } });
        expect(hits).toHaveLength(10);
        expect(hits.every((h) => h.payload.group === 7)).toBe(true);
        total += recall(
          hits.map((h) => h.id),
          bruteForceTopK(q, data.vectors, 10, allowed),
        );
      }
      expect(total / 10).toBeGreaterThanOrEqual(0.95);
      const all = await store.query(name, { vector: queries[0], limit: 100, filter: { group: 7 } });
      expect(sortedIds(all.map((h) => h.id))).toEqual(sortedIds(allowed));
    });

    it('returns `limit` nearest matches for a broad nested-key filter', async () => {
      const allowed = matching((i) => i % 2 === 0);
      let total = 0;
      for (const q of queries.slice(0, 10)) {
        const hits = await store.query(name, { vector: q, limit: 20, filter: { 'meta.parity': 'even' } });
        expect(hits).toHaveLength(20);
        expect(hits.every((h) => (h.payload.meta as { parity: string }).parity === 'even')).toBe(true);
        total += recall(
          hits.map((h) => h.id),
          bruteForceTopK(q, data.vectors, 20, allowed),
        );
      }
      expect(total / 10).toBeGreaterThanOrEqual(0.95);
    });

    it('requires every equality key to match', async () => {
      const both = await store.query(name, {
        vector: queries[1],
        limit: 100,
        filter: { group: 8, 'meta.parity': 'even' },
      });
      expect(sortedIds(both.map((h) => h.id))).toEqual(sortedIds(matching((i) => i % 50 === 8)));
      expect(
        await store.query(name, {
          vector: queries[1],
          limit: 10,
          filter: { group: 8, 'meta.parity': 'odd' },
        }),
      ).toEqual([]);
      expect(
        await store.query(name, { vector: queries[1], limit: 10, filter: { 'meta.deep.lang': 'fr' } }),
      ).toEqual([]);
    });

    const clauseCases: Array<[string, VectorFilter, (i: number) => boolean]> = [
      ['array field equality', { tags: 'fizz' }, (i) => i % 3 === 0],
      ['non-integer number equality', { weight: 0.375 }, (i) => i % 4 === 1],
      ['two keys, one nested', { 'meta.deep.lang': 'de', group: 10 }, (i) => i % 5 === 0 && i % 50 === 10],
      [
        'must with any and must_not with range',
        {
          must: [{ key: 'group', match: { any: [1, 2] } }],
          must_not: [{ key: 'rank', range: { gte: 1500 } }],
        },
        (i) => (i % 50 === 1 || i % 50 === 2) && i < 1500,
      ],
      [
        'should',
        {
          should: [
            { key: 'group', match: { value: 3 } },
            { key: 'meta.deep.lang', match: { value: 'de' } },
          ],
        },
        (i) => i % 50 === 3 || i % 5 === 0,
      ],
      [
        'range bounds',
        {
          must: [
            { key: 'rank', range: { gt: 100, lte: 220 } },
            { key: 'meta.parity', match: { value: 'odd' } },
          ],
        },
        (i) => i > 100 && i <= 220 && i % 2 === 1,
      ],
      [
        'nested clause filters and except',
        {
          must: [
            {
              should: [
                { key: 'group', match: { value: 4 } },
                { key: 'group', match: { value: 5 } },
              ],
            },
            { key: 'meta.parity', match: { except: ['odd'] } },
          ],
        },
        (i) => i % 50 === 4,
      ],
      ['has_id', { must: [{ has_id: [5, 17, 2999, 4000] }] }, (i) => i === 5 || i === 17 || i === 2999],
      ['has_id in must_not beside a field condition', { must: [{ key: 'group', match: { value: 9 } }], must_not: [{ has_id: [9, 59] }] }, (i) => i % 50 === 9 && i !== 9 && i !== 59],
      ['geo_radius', { must: [{ key: 'loc', geo_radius: { center: CENTRE, radius: 52_000 } }] }, within(52_000)],
      [
        'geo_radius with must_not and an equality',
        {
          must: [{ key: 'meta.parity', match: { value: 'even' } }],
          must_not: [{ key: 'loc', geo_radius: { center: CENTRE, radius: 153_000 } }],
        },
        (i) => i % 2 === 0 && !within(153_000)(i),
      ],
    ];
    it.each(clauseCases)('filters with %s exactly (scroll and query agree)', async (_label, filter, pred) => {
      const expected = matching(pred);
      expect(expected.length).toBeGreaterThan(0);
      expect(sortedIds(await scrollAll(store, name, 1000, filter))).toEqual(sortedIds(expected));
      const hits = await store.query(name, { vector: queries[2], limit: 5, filter });
      expect(hits).toHaveLength(Math.min(5, expected.length));
      expect(sortedIds(hits.map((h) => h.id))).toEqual(
        sortedIds(bruteForceTopK(queries[2], data.vectors, 5, expected)),
      );
    });

    it('rejects malformed or unsupported filters with a typed 400', async () => {
      const bad: unknown[] = [
        { must: [{ key: 'title', match: { text: 'hello' } }] },
        { must: [{ key: 'loc', geo_radius: { center: { lat: 95, lon: 0 }, radius: 1 } }] },
        { must: [{ key: 'loc', geo_radius: { center: { lat: 0, lon: 0 }, radius: -1 } }] },
        { must: [{ key: 'rank', range: { gt: 'yesterday' } }] },
        { must: [{ key: 'group' }] },
        { meta: { parity: 'even' } },
        { must: [{ whatever: true }] },
      ];
      for (const filter of bad) {
        const call = store.query(name, { vector: queries[0], limit: 3, filter: filter as VectorFilter });
        await expect(call).rejects.toBeInstanceOf(VectorFilterError);
        await expect(call).rejects.toMatchObject({ status: 400 });
      }
    });
  });

  describe('aliases', () => {
    it('answers point operations and metadata through an alias, and lists it', async () => {
      const a = indexName('alias_a');
      const alias = indexName('alias_live');
      await store.createIndex(a, { dim: 2, distance: 'euclid' });
      await store.upsert(a, [{ id: 1, vector: [0, 0], payload: { from: 'a' } }]);
      await store.setAlias(alias, a);
      expect(await store.getIndex(alias)).toEqual({ name: a, dim: 2, distance: 'euclid', count: 1 });
      expect(await store.query(alias, { vector: [0, 0], limit: 5 })).toEqual([
        { id: 1, score: expect.closeTo(0, 4), payload: { from: 'a' } },
      ]);
      await store.upsert(alias, [{ id: 2, vector: [1, 0], payload: { from: 'alias' } }]);
      await store.delete(alias, [1]);
      expect((await store.scroll(alias, { limit: 10 })).points).toEqual([{ id: 2, payload: { from: 'alias' } }]);
      expect((await store.getIndex(a))?.count).toBe(1);
      expect(await store.listAliases()).toContainEqual({ alias, index: a });
      // An alias is not an index: not listed as one, and deleteIndex by its name removes nothing.
      expect((await store.listIndexes()).map((i) => i.name)).not.toContain(alias);
      expect(await store.deleteIndex(alias)).toBe(false);
      expect(await store.getIndex(a)).not.toBeNull();
    });

    it('moves an alias atomically: every query during a switch answers from one index or the other', async () => {
      const oldIndex = indexName('switch_old');
      const newIndex = indexName('switch_new');
      const alias = indexName('switch_live');
      await store.createIndex(oldIndex, { dim: 2, distance: 'cosine' });
      await store.createIndex(newIndex, { dim: 2, distance: 'cosine' });
      await store.upsert(oldIndex, [{ id: 1, vector: [1, 0], payload: { gen: 'old' } }]);
      await store.upsert(newIndex, [{ id: 1, vector: [1, 0], payload: { gen: 'new' } }]);
      await store.setAlias(alias, oldIndex);
      const seen: string[] = [];
      const reader = (async () => {
        for (let i = 0; i < 30; i++) {
          const hits = await store.query(alias, { vector: [1, 0], limit: 1 });
          seen.push(String(hits[0]?.payload.gen));
        }
      })();
      await store.setAlias(alias, newIndex);
      await reader;
      expect(seen.every((g) => g === 'old' || g === 'new')).toBe(true);
      expect((await store.query(alias, { vector: [1, 0], limit: 1 }))[0].payload).toEqual({ gen: 'new' });
      expect((await store.listAliases()).filter((x) => x.alias === alias)).toEqual([{ alias, index: newIndex }]);
      // The old index is untouched and can now go.
      expect(await store.deleteIndex(oldIndex)).toBe(true);
      expect((await store.query(alias, { vector: [1, 0], limit: 1 }))[0].payload).toEqual({ gen: 'new' });
    });

    it('refuses an alias to a missing index (404) or named like an index (400), and deletes aliases', async () => {
      const real = indexName('alias_real');
      const other = indexName('alias_other');
      const alias = indexName('alias_x');
      await store.createIndex(real, { dim: 2, distance: 'dot' });
      await store.createIndex(other, { dim: 2, distance: 'dot' });
      await expect(store.setAlias(alias, indexName('alias_nowhere'))).rejects.toBeInstanceOf(VectorIndexNotFoundError);
      await expect(store.setAlias(other, real)).rejects.toMatchObject({ status: 400 });
      await store.setAlias(alias, real);
      expect(await store.deleteAlias(alias)).toBe(true);
      expect(await store.deleteAlias(alias)).toBe(false);
      expect(await store.getIndex(alias)).toBeNull();
      await expect(store.query(alias, { vector: [1, 0], limit: 1 })).rejects.toBeInstanceOf(VectorIndexNotFoundError);
      expect(await store.getIndex(real)).not.toBeNull();
    });

    it('drops the aliases of a deleted index', async () => {
      const idx = indexName('alias_dropped');
      const alias = indexName('alias_dropped_live');
      await store.createIndex(idx, { dim: 2, distance: 'dot' });
      await store.setAlias(alias, idx);
      expect(await store.deleteIndex(idx)).toBe(true);
      expect((await store.listAliases()).map((a) => a.alias)).not.toContain(alias);
      expect(await store.getIndex(alias)).toBeNull();
    });

    it('pages through every point with scrollPages', async () => {
      const name = indexName('pages');
      await store.createIndex(name, { dim: 2, distance: 'dot' });
      await store.upsert(
        name,
        Array.from({ length: 53 }, (_, i) => ({ id: i, vector: [i, 1], payload: { odd: i % 2 === 1 } })),
      );
      const pages: VectorPointId[][] = [];
      for await (const page of scrollPages(store, name, { pageSize: 10 })) pages.push(page.map((p) => p.id));
      expect(pages.map((p) => p.length)).toEqual([10, 10, 10, 10, 10, 3]);
      expect(pages.flat()).toEqual(Array.from({ length: 53 }, (_, i) => i));
      const odd: VectorPointId[] = [];
      for await (const page of scrollPages(store, name, { pageSize: 7, filter: { odd: true } }))
        odd.push(...page.map((p) => p.id));
      expect(odd).toEqual(Array.from({ length: 26 }, (_, i) => 2 * i + 1));
    });
  });

  if (target.durable) {
    describe('durability', () => {
      it('keeps indexes, points, payloads, overwrites and deletes across close and reopen', async () => {
        const DIM = 16;
        const data = clusteredVectors(1500, DIM, 12, 99);
        const kept = indexName('durable');
        const dropped = indexName('durable_dropped');
        const empty = indexName('durable_empty');
        await store.createIndex(kept, { dim: DIM, distance: 'cosine' });
        await store.createIndex(dropped, { dim: 4, distance: 'dot' });
        await store.createIndex(empty, { dim: 5, distance: 'euclid' });
        for (let i = 0; i < 1500; i += 500) {
          await store.upsert(
            kept,
            data.vectors.slice(i, i + 500).map((vector, j) => ({ id: i + j, vector, payload: { n: i + j } })),
          );
        }
        await store.upsert(dropped, [{ id: 1, vector: [1, 1, 1, 1] }]);
        const aliasOfKept = indexName('durable_alias');
        const aliasOfDropped = indexName('durable_alias_dropped');
        await store.setAlias(aliasOfKept, kept);
        await store.setAlias(aliasOfDropped, dropped);
        await store.delete(
          kept,
          Array.from({ length: 100 }, (_, i) => i),
        );
        await store.upsert(kept, [{ id: 700, vector: data.vectors[5], payload: { n: 700, moved: true } }]);
        await store.deleteIndex(dropped);

        await store.close();
        store = await target.open();

        expect(await store.getIndex(kept)).toEqual({ name: kept, dim: DIM, distance: 'cosine', count: 1400 });
        expect(await store.getIndex(aliasOfKept)).toEqual({ name: kept, dim: DIM, distance: 'cosine', count: 1400 });
        const aliases = await store.listAliases();
        expect(aliases).toContainEqual({ alias: aliasOfKept, index: kept });
        expect(aliases.map((a) => a.alias)).not.toContain(aliasOfDropped);
        expect(await store.getIndex(dropped)).toBeNull();
        expect(await store.getIndex(empty)).toEqual({ name: empty, dim: 5, distance: 'euclid', count: 0 });
        await store.upsert(empty, [{ id: 1, vector: [1, 2, 3, 4, 5] }]);
        expect((await store.query(empty, { vector: [1, 2, 3, 4, 5], limit: 1 }))[0]).toMatchObject({ id: 1 });
        const ids = await scrollAll(store, kept, 500);
        expect(sortedIds(ids)).toEqual(sortedIds(Array.from({ length: 1400 }, (_, i) => i + 100)));
        const [moved] = await store.query(kept, { vector: data.vectors[5], limit: 1 });
        expect(moved).toEqual({ id: 700, score: expect.closeTo(1, 3), payload: { n: 700, moved: true } });
        const current = data.vectors.slice();
        current[700] = data.vectors[5];
        const live = Array.from({ length: 1400 }, (_, i) => i + 100);
        let total = 0;
        for (let q = 200; q < 220; q++) {
          const hits = await store.query(kept, { vector: data.vectors[q], limit: 10 });
          total += recall(
            hits.map((h) => h.id),
            bruteForceTopK(data.vectors[q], current, 10, live),
          );
        }
        expect(total / 20).toBeGreaterThanOrEqual(0.95);

        // Writes after a reopen (new points, a deleted id back) survive a second cycle too.
        await store.upsert(kept, [
          { id: 0, vector: data.vectors[0], payload: { n: 0, back: true } },
          { id: 5000, vector: data.vectors[1], payload: { n: 5000 } },
        ]);
        await store.delete(kept, [1499]);
        await store.close();
        store = await target.open();
        expect((await store.getIndex(kept))?.count).toBe(1401);
        expect((await store.query(kept, { vector: data.vectors[0], limit: 1 }))[0]).toMatchObject({
          id: 0,
          payload: { n: 0, back: true },
        });
        expect((await store.scroll(kept, { limit: 1, offset: 1499 })).points[0].id).toBe(5000);
      });
    });
  }
}
