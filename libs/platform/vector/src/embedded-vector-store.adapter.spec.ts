import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmbeddedVectorStore, type EmbeddedVectorStore } from './embedded-vector-store.adapter';
import { clusteredVectors } from './vector-store.contract';
import { VectorStoreUnavailableError } from './vector-store.errors';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('EmbeddedVectorStore', () => {
  let dir: string;
  const open: EmbeddedVectorStore[] = [];
  const openStore = async (
    options: Parameters<typeof createEmbeddedVectorStore>[0] = {},
  ): Promise<EmbeddedVectorStore> => {
    const store = await createEmbeddedVectorStore(options);
    open.push(store);
    return store;
  };

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'vector-embedded-'));
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps serving every point after growing past its initial capacity and heavy deletes', async () => {
    // exactSearchThreshold 0 sends every query through the HNSW graph, indexingThresholdBytes 0
    // puts every write into it at once.
    const store = await openStore({ hnsw: { initialCapacity: 8, exactSearchThreshold: 0, indexingThresholdBytes: 0 } });
    const { vectors } = clusteredVectors(400, 12, 8, 3);
    await store.createIndex('grow', { dim: 12, distance: 'euclid' });
    await store.upsert(
      'grow',
      vectors.slice(0, 300).map((vector, id) => ({ id, vector })),
    );
    await store.delete(
      'grow',
      Array.from({ length: 150 }, (_, i) => i),
    );
    await store.upsert(
      'grow',
      vectors.slice(300).map((vector, i) => ({ id: 300 + i, vector })),
    );
    expect((await store.getIndex('grow'))?.count).toBe(250);
    for (const id of [150, 299, 300, 399]) {
      const [hit] = await store.query('grow', { vector: vectors[id], limit: 1 });
      expect(hit).toMatchObject({ id, score: expect.closeTo(0, 4) });
    }
    const hits = await store.query('grow', { vector: vectors[10], limit: 250 });
    expect(hits).toHaveLength(250);
    expect(hits.some((h) => (h.id as number) < 150)).toBe(false);
  });

  it('hands out copies of payloads, so callers cannot change stored data by accident', async () => {
    const store = await openStore();
    await store.createIndex('copies', { dim: 2, distance: 'dot' });
    const payload = { tags: ['a'] };
    await store.upsert('copies', [{ id: 1, vector: [1, 0], payload }]);
    payload.tags.push('changed-after-upsert');
    const [hit] = await store.query('copies', { vector: [1, 0], limit: 1 });
    (hit.payload.tags as string[]).push('changed-after-query');
    expect((await store.scroll('copies', { limit: 1 })).points[0].payload).toEqual({ tags: ['a'] });
  });

  it('flushes to disk on its own within flushDelayMs, without close', async () => {
    const writer = await openStore({ dir, flushDelayMs: 50 });
    await writer.createIndex('auto', { dim: 3, distance: 'cosine' });
    await writer.upsert('auto', [{ id: 1, vector: [1, 2, 3], payload: { ok: true } }]);
    await sleep(400);
    const reader = await openStore({ dir });
    expect(await reader.getIndex('auto')).toEqual({ name: 'auto', dim: 3, distance: 'cosine', count: 1 });
    expect((await reader.scroll('auto', { limit: 5 })).points).toEqual([{ id: 1, payload: { ok: true } }]);
  });

  it('writes its directories 0700 and its files 0600, and tightens older ones on open', async () => {
    const modes = async (): Promise<Array<[string, number]>> => {
      const out: Array<[string, number]> = [[dir, (await stat(dir)).mode & 0o777]];
      for (const name of await readdir(dir, { recursive: true })) {
        out.push([name, (await stat(path.join(dir, name))).mode & 0o777]);
      }
      return out;
    };
    const expected = async () =>
      Promise.all((await modes()).map(async ([p]) => [p, (await stat(path.resolve(dir, p))).isDirectory() ? 0o700 : 0o600]));
    await chmod(dir, 0o755);
    const writer = await openStore({ dir });
    await writer.createIndex('docs', { dim: 2, distance: 'euclid' });
    await writer.upsert('docs', [{ id: 1, vector: [0, 1], payload: { secret: 'x' } }]);
    await writer.setAlias('current', 'docs');
    await writer.close();
    expect((await modes()).length).toBeGreaterThan(4);
    expect(await modes()).toEqual(await expected());

    for (const [p] of await modes()) await chmod(path.resolve(dir, p), 0o755);
    await openStore({ dir });
    expect(await modes()).toEqual(await expected());
  });

  it('ignores and cleans leftovers of an interrupted save', async () => {
    const first = await openStore({ dir });
    await first.createIndex('docs', { dim: 2, distance: 'euclid' });
    await first.upsert('docs', [{ id: 1, vector: [0, 1] }]);
    await first.close();
    // A crash during the next save: new-generation files written, meta.json never replaced,
    // plus an index whose very first save never committed.
    await writeFile(path.join(dir, 'docs', 'graph-2.hnsw.tmp'), 'partial');
    await writeFile(path.join(dir, 'docs', 'points-2.jsonl'), '{"id":2,"label":1,"payload":{}}\n');
    await mkdir(path.join(dir, 'never_committed'));
    await writeFile(path.join(dir, 'never_committed', 'graph-1.hnsw'), 'partial');

    const reopened = await openStore({ dir });
    expect(await reopened.listIndexes()).toEqual([{ name: 'docs', dim: 2, distance: 'euclid', count: 1 }]);
    expect(await readdir(path.join(dir, 'docs'))).toEqual(
      expect.not.arrayContaining(['graph-2.hnsw.tmp', 'points-2.jsonl']),
    );
  });

  it('refuses to start on a directory it cannot read, rather than serving an empty index', async () => {
    await mkdir(path.join(dir, 'broken'));
    await writeFile(path.join(dir, 'broken', 'meta.json'), '{not json');
    await expect(createEmbeddedVectorStore({ dir })).rejects.toBeInstanceOf(VectorStoreUnavailableError);
  });

  it('reports a failing disk through ping and recovers once it can write again', async () => {
    const root = path.join(dir, 'data');
    const store = await openStore({ dir: root, flushDelayMs: 60_000 });
    await store.createIndex('fragile', { dim: 2, distance: 'cosine' });
    await rm(root, { recursive: true, force: true });
    await writeFile(root, 'a file where the directory should be');
    await expect(store.flush()).rejects.toBeInstanceOf(VectorStoreUnavailableError);
    await expect(store.ping()).rejects.toMatchObject({ status: 503 });
    // Memory keeps serving meanwhile.
    await store.upsert('fragile', [{ id: 1, vector: [1, 1] }]);
    expect((await store.getIndex('fragile'))?.count).toBe(1);

    await rm(root);
    await store.flush();
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
    const reopened = await openStore({ dir: root });
    expect((await reopened.getIndex('fragile'))?.count).toBe(1);
  });

  it('rejects every call after close with a 503', async () => {
    const store = await openStore();
    await store.createIndex('gone', { dim: 2, distance: 'cosine' });
    await store.close();
    await expect(store.ping()).rejects.toBeInstanceOf(VectorStoreUnavailableError);
    await expect(store.query('gone', { vector: [1, 0], limit: 1 })).rejects.toMatchObject({ status: 503 });
    await expect(store.upsert('gone', [{ id: 1, vector: [1, 0] }])).rejects.toMatchObject({ status: 503 });
    await expect(store.close()).resolves.toBeUndefined();
  });

  describe('deferred indexing (points searchable before they reach the graph)', () => {
    const DIM = 16;
    const data = clusteredVectors(3000, DIM, 30, 11);
    const queries = clusteredVectors(30, DIM, 30, 12).vectors;
    const points = (from: number, to: number) =>
      data.vectors.slice(from, to).map((vector, i) => ({ id: from + i, vector, payload: { even: (from + i) % 2 === 0 } }));
    const unit = (v: number[]) => {
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const topK = (q: number[], k: number, ids: number[]) => {
      const u = unit(q);
      return ids
        .map((i) => ({ i, s: unit(data.vectors[i]).reduce((a, x, j) => a + x * u[j], 0) }))
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .slice(0, k)
        .map((h) => h.i);
    };
    // Graph queries from the first point on; background indexing only when a test asks for it.
    const tuning = { exactSearchThreshold: 0, indexingIdleMs: 60_000 };

    it('finds a point right after its upsert, while the rest sits in the graph', async () => {
      const store = await openStore({ hnsw: tuning });
      await store.createIndex('fresh', { dim: DIM, distance: 'cosine' });
      await store.upsert('fresh', points(0, 2000));
      await store.indexNow();
      expect(await store.pendingCount('fresh')).toBe(0);
      await store.upsert('fresh', points(2000, 2001));
      expect(await store.pendingCount('fresh')).toBe(1);
      const [hit] = await store.query('fresh', { vector: data.vectors[2000], limit: 1 });
      expect(hit).toMatchObject({ id: 2000, score: expect.closeTo(1, 5), payload: { even: true } });
      // And once it is in the graph, the same answer.
      await store.indexNow();
      expect((await store.query('fresh', { vector: data.vectors[2000], limit: 1 }))[0]).toMatchObject({ id: 2000, score: expect.closeTo(1, 5) });
    });

    it('honours deletes and re-upserts of pending points, and moves an updated indexed point out of the graph', async () => {
      const store = await openStore({ hnsw: tuning });
      await store.createIndex('churn', { dim: DIM, distance: 'cosine' });
      await store.upsert('churn', points(0, 1500));
      await store.indexNow();
      await store.upsert('churn', points(1500, 1600));
      // A pending point deleted: gone from answers and from the count.
      await store.delete('churn', [1550]);
      expect(await store.pendingCount('churn')).toBe(99);
      expect((await store.query('churn', { vector: data.vectors[1550], limit: 5 })).map((h) => h.id)).not.toContain(1550);
      // A pending point re-upserted with another vector: only the new one answers.
      await store.upsert('churn', [{ id: 1551, vector: data.vectors[7], payload: { moved: true } }]);
      expect((await store.query('churn', { vector: data.vectors[1551], limit: 3 })).map((h) => h.id)).not.toContain(1551);
      const near7 = await store.query('churn', { vector: data.vectors[7], limit: 2 });
      expect(near7.map((h) => h.id).sort((a, b) => (a as number) - (b as number))).toEqual([7, 1551]);
      expect(near7.find((h) => h.id === 1551)?.payload).toEqual({ moved: true });
      // An indexed point updated: its old vector no longer finds it, the new one does at once.
      await store.upsert('churn', [{ id: 10, vector: data.vectors[1599], payload: {} }]);
      expect((await store.query('churn', { vector: data.vectors[10], limit: 3 })).map((h) => h.id)).not.toContain(10);
      expect((await store.query('churn', { vector: data.vectors[1599], limit: 2 })).map((h) => h.id).sort((a, b) => (a as number) - (b as number))).toEqual([10, 1599]);
      expect((await store.getIndex('churn'))?.count).toBe(1599);
      // An indexed point deleted stays deleted once everything is in the graph.
      await store.delete('churn', [11]);
      await store.indexNow();
      expect((await store.query('churn', { vector: data.vectors[11], limit: 3 })).map((h) => h.id)).not.toContain(11);
      expect((await store.query('churn', { vector: data.vectors[1599], limit: 2 })).map((h) => h.id).sort((a, b) => (a as number) - (b as number))).toEqual([10, 1599]);
      expect((await store.getIndex('churn'))?.count).toBe(1598);
      const all = await store.query('churn', { vector: data.vectors[0], limit: 1598 });
      expect(new Set(all.map((h) => h.id)).size).toBe(1598);
    });

    it('keeps recall@10 >= 0.95 against brute force with half the points pending, filtered or not', async () => {
      const store = await openStore({ hnsw: tuning });
      await store.createIndex('half', { dim: DIM, distance: 'cosine' });
      await store.upsert('half', points(0, 1500));
      await store.indexNow();
      await store.upsert('half', points(1500, 3000));
      expect(await store.pendingCount('half')).toBe(1500);
      const ids = data.vectors.map((_, i) => i);
      let plain = 0;
      let filtered = 0;
      for (const q of queries) {
        const hits = await store.query('half', { vector: q, limit: 10 });
        expect(hits).toHaveLength(10);
        for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
        const want = new Set(topK(q, 10, ids));
        plain += hits.filter((h) => want.has(h.id as number)).length / 10;
        const even = await store.query('half', { vector: q, limit: 10, filter: { even: true } });
        expect(even.every((h) => (h.id as number) % 2 === 0)).toBe(true);
        const wantEven = new Set(topK(q, 10, ids.filter((i) => i % 2 === 0)));
        filtered += even.filter((h) => wantEven.has(h.id as number)).length / 10;
      }
      expect(plain / queries.length).toBeGreaterThanOrEqual(0.95);
      expect(filtered / queries.length).toBeGreaterThanOrEqual(0.95);
    });

    it('indexes in the background once writes pause, and bounds the pending tail by the threshold', async () => {
      const store = await openStore({ hnsw: { exactSearchThreshold: 0, indexingIdleMs: 30, indexingThresholdBytes: 100 * DIM * 4 } });
      await store.createIndex('bg', { dim: DIM, distance: 'cosine' });
      await store.upsert('bg', points(0, 250));
      expect(await store.pendingCount('bg')).toBe(100);
      await store.upsert('bg', points(250, 300));
      expect(await store.pendingCount('bg')).toBe(100);
      // Drained by background steps alone (polled: the machine may be busy).
      for (let waited = 0; (await store.pendingCount('bg')) > 0 && waited < 5000; waited += 20) await sleep(20);
      expect(await store.pendingCount('bg')).toBe(0);
      expect((await store.query('bg', { vector: data.vectors[299], limit: 1 }))[0].id).toBe(299);
    });

    it('keeps indexing, one step per idle period, under a steady trickle of writes', async () => {
      const store = await openStore({ hnsw: { exactSearchThreshold: 0, indexingIdleMs: 40, indexingSliceMs: 2 } });
      await store.createIndex('trickle', { dim: DIM, distance: 'cosine' });
      await store.upsert('trickle', points(0, 2000));
      const started = Date.now();
      // A write every 10 ms: never a pause of indexingIdleMs.
      for (let i = 2000; Date.now() - started < 1500; i++) {
        await store.upsert('trickle', points(i, i + 1));
        await sleep(10);
      }
      expect(await store.pendingCount('trickle')).toBeLessThan(1500);
    });

    it('saves pending points with their vectors and indexes them after a reopen', async () => {
      const writer = await openStore({ dir, flushDelayMs: 60_000, hnsw: tuning });
      await writer.createIndex('kept', { dim: DIM, distance: 'cosine' });
      await writer.upsert('kept', points(0, 1200));
      await writer.indexNow();
      await writer.upsert('kept', points(1200, 1300));
      await writer.delete('kept', [5, 1250]);
      await writer.close();
      expect(await readdir(path.join(dir, 'kept'))).toEqual(expect.arrayContaining(['pending-1.f32']));
      const reader = await openStore({ dir, hnsw: tuning });
      expect(await reader.getIndex('kept')).toMatchObject({ count: 1298 });
      expect(await reader.pendingCount('kept')).toBe(99);
      for (const id of [0, 1199, 1200, 1299]) {
        expect((await reader.query('kept', { vector: data.vectors[id], limit: 1 }))[0]).toMatchObject({ id, payload: { even: id % 2 === 0 } });
      }
      const scrolled = await reader.scroll('kept', { limit: 1, offset: 1201, withVectors: true });
      expect(scrolled.points[0].vector?.[0]).toBeCloseTo(unit(data.vectors[1201])[0], 5);
      await reader.indexNow();
      expect(await reader.pendingCount('kept')).toBe(0);
      for (const id of [5, 1250]) expect((await reader.query('kept', { vector: data.vectors[id], limit: 3 })).map((h) => h.id)).not.toContain(id);
      expect((await reader.query('kept', { vector: data.vectors[1299], limit: 1 }))[0].id).toBe(1299);
    });
  });
});
