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
    // exactSearchThreshold 0 sends every query through the HNSW graph.
    const store = await openStore({ hnsw: { initialCapacity: 8, exactSearchThreshold: 0 } });
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
});
