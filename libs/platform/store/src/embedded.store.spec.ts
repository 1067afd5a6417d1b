import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { type EmbeddedStore, createEmbeddedStore, createMemoryStore } from './embedded.store';
import { mingoMatcher } from './filter.util';
import { DuplicateKeyError, type Filter, StoreUnavailableError } from './store.port';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('EmbeddedStore persistence', () => {
  let root: string;
  let dir: string;
  let warnings: string[];
  const open = (extra: Parameters<typeof createEmbeddedStore>[0] extends infer O ? Partial<O> : never = {}) =>
    createEmbeddedStore({ dir, logger: { warn: (m) => warnings.push(m) }, ttlReapIntervalMs: 0, ...extra });
  const journals = () => readdirSync(dir).filter((f) => f.startsWith('journal-'));
  const journalFile = () => path.join(dir, journals().sort().at(-1) as string);

  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'embedded-store-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  beforeEach(() => {
    dir = path.join(root, `s${Math.random().toString(36).slice(2)}`);
    warnings = [];
  });

  it('keeps documents, Dates, unique indexes and TTL indexes across close and reopen', async () => {
    const s1 = await open();
    const users = s1.collection<{ _id: string; email: string; born: Date }>('users');
    const sessions = s1.collection<{ _id: string; expiresAt: Date }>('sessions');
    await users.createIndex({ keys: { email: 1 }, unique: true });
    await sessions.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
    await users.insertOne({ _id: 'u1', email: 'a@x.io', born: new Date('1990-05-01T00:00:00Z') });
    await users.insertOne({ _id: 'u2', email: 'b@x.io', born: new Date('1991-05-01T00:00:00Z') });
    await users.updateOne({ _id: 'u2' }, { $set: { email: 'c@x.io' } });
    await sessions.insertOne({ _id: 'short', expiresAt: new Date(Date.now() + 300) });
    await sessions.insertOne({ _id: 'long', expiresAt: new Date(Date.now() + 3_600_000) });
    await s1.close();

    const s2 = await open();
    const u = s2.collection<{ _id: string; email: string; born: Date }>('users');
    expect(await u.find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 'u1', email: 'a@x.io', born: new Date('1990-05-01T00:00:00Z') },
      { _id: 'u2', email: 'c@x.io', born: new Date('1991-05-01T00:00:00Z') },
    ]);
    expect((await u.findOne({ email: 'c@x.io' }))?.born).toBeInstanceOf(Date);
    await expect(u.insertOne({ email: 'a@x.io', born: new Date() })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    await u.insertOne({ email: 'b@x.io', born: new Date() }); // the old key was released by the update
    const sess = s2.collection<{ _id: string; expiresAt: Date }>('sessions');
    expect((await sess.find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['long', 'short']);
    await sleep(350);
    expect((await sess.find({})).map((d) => d._id)).toEqual(['long']);
    await sess.insertOne({ _id: 'past', expiresAt: new Date(Date.now() - 1000) });
    expect(await sess.findOne({ _id: 'past' })).toBeNull();
    expect(await s2.reapExpired()).toBe(2);
    await s2.close();
  });

  it('ignores a torn last journal line, keeps earlier data and keeps working after it', async () => {
    const s1 = await open();
    const c = s1.collection('things');
    await c.insertMany([
      { _id: 'a', n: 1 },
      { _id: 'b', n: 2 },
    ]);
    await c.updateOne({ _id: 'a' }, { $inc: { n: 10 } });
    await s1.close();
    const good = statSync(journalFile()).size;
    appendFileSync(journalFile(), '1a2b3c4d {"o":"p","c":"things","d":{"_id":"torn","n"');

    const s2 = await open();
    const c2 = s2.collection('things');
    expect(await c2.find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 'a', n: 11 },
      { _id: 'b', n: 2 },
    ]);
    expect(warnings.some((w) => w.includes('incomplete last record'))).toBe(true);
    expect(statSync(journalFile()).size).toBe(good);
    await c2.insertOne({ _id: 'c', n: 3 });
    await s2.close();

    appendFileSync(journalFile(), 'not a record at all\n');
    const s3 = await open();
    expect(await s3.collection('things').countDocuments()).toBe(3);
    await s3.close();
  });

  it('applies a transaction from the journal entirely or not at all', async () => {
    const s1 = await open();
    const c = s1.collection('orders');
    await c.insertOne({ _id: 'before', n: 0 });
    await s1.withTransaction(async (session) => {
      await c.insertOne({ _id: 't1', n: 1 }, { session });
      await c.insertOne({ _id: 't2', n: 2 }, { session });
      await c.updateOne({ _id: 'before' }, { $set: { n: 99 } }, { session });
    });
    await s1.close();
    const lines = readFileSync(journalFile(), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2); // one record for the insert, ONE for the whole transaction

    truncateSync(journalFile(), statSync(journalFile()).size - 5); // crash in the middle of writing it
    const s2 = await open();
    expect(await s2.collection('orders').find({})).toEqual([{ _id: 'before', n: 0 }]);
    await s2.close();
  });

  it('refuses to open a journal that is damaged before its end', async () => {
    const s1 = await open();
    await s1.collection('x').insertOne({ _id: 'a' });
    await s1.collection('x').insertOne({ _id: 'b' });
    await s1.close();
    const text = readFileSync(journalFile(), 'utf8');
    writeFileSync(journalFile(), text.replace('"_id":"a"', '"_id":"A"'));
    await expect(open()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('compacts into a snapshot without losing data, also while writes continue', async () => {
    const s1 = await open();
    const c = s1.collection<{ _id: string; n: number; at: Date; tags: string[] }>('docs');
    await c.createIndex({ keys: { n: 1 }, unique: true });
    await c.insertMany(
      Array.from({ length: 300 }, (_, n) => ({
        _id: `d${n}`,
        n,
        at: new Date(n * 1000),
        tags: [`t${n % 3}`],
      })),
    );
    await c.updateMany({ n: { $lt: 100 } }, { $inc: { n: 1000 } });
    await c.deleteMany({ n: { $gte: 200, $lt: 250 } });
    const before = await c.find({}, { sort: { _id: 1 } });
    const journalBefore = statSync(journalFile()).size;

    const compaction = s1.compact();
    await c.insertOne({ _id: 'during', n: -1, at: new Date(0), tags: [] }); // lands in the new journal
    await compaction;
    expect(existsSync(path.join(dir, 'snapshot.jsonl'))).toBe(true);
    expect(journals()).toHaveLength(1);
    expect(statSync(journalFile()).size).toBeLessThan(journalBefore);
    await s1.close();

    const s2 = await open();
    const c2 = s2.collection<{ _id: string; n: number; at: Date; tags: string[] }>('docs');
    const after = await c2.find({ _id: { $ne: 'during' } }, { sort: { _id: 1 } });
    expect(after).toEqual(before);
    expect(after[0].at).toBeInstanceOf(Date);
    expect(await c2.findOne({ _id: 'during' })).toMatchObject({ n: -1 });
    await expect(c2.insertOne({ n: 150, at: new Date(), tags: [] })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    await s2.close();
  });

  it('compacts on its own once the journal outgrows the threshold', async () => {
    const s1 = await open({ compactMinBytes: 8 * 1024 });
    const c = s1.collection<{ _id: string; v: number }>('counters');
    await c.insertOne({ _id: 'k', v: 0 });
    for (let i = 0; i < 400; i++) await c.updateOne({ _id: 'k' }, { $inc: { v: 1 } });
    await s1.close();
    expect(existsSync(path.join(dir, 'snapshot.jsonl'))).toBe(true);
    expect(statSync(journalFile()).size).toBeLessThan(16 * 1024);
    const s2 = await open();
    expect(await s2.collection('counters').findOne({ _id: 'k' })).toEqual({ _id: 'k', v: 400 });
    await s2.close();
  });

  it('persists every concurrent write under fsync "always" (group commit)', async () => {
    const s1 = await open({ fsync: 'always' });
    const c = s1.collection<{ _id: string; i: number }>('events');
    await Promise.all(Array.from({ length: 200 }, (_, i) => c.insertOne({ _id: `e${i}`, i })));
    await s1.close();
    const s2 = await open();
    expect(await s2.collection('events').countDocuments()).toBe(200);
    await s2.close();
  });

  it('locks its directory against a second open until closed', async () => {
    const s1 = await open();
    await expect(open()).rejects.toBeInstanceOf(StoreUnavailableError);
    await s1.close();
    const s2 = await open();
    await s2.ping();
    await s2.close();
  });

  it('rejects operations after close and reports it through ping', async () => {
    const s = await open();
    await s.close();
    await expect(s.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(s.collection('x').insertOne({})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(s.collection('x').find({})).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('reaps expired documents in the background', async () => {
    const s = await open({ ttlReapIntervalMs: 20 });
    const c = s.collection<{ _id: string; at: Date }>('ttl');
    await c.createIndex({ keys: { at: 1 }, expireAfterSeconds: 0 });
    await c.insertMany([{ at: new Date(Date.now() - 1) }, { at: new Date(Date.now() + 60_000) }]);
    await sleep(120);
    expect(await s.reapExpired()).toBe(0);
    expect(readFileSync(journalFile(), 'utf8')).toContain('"o":"d"');
    await s.close();
  });
});

describe('EmbeddedStore transactions', () => {
  let store: EmbeddedStore;
  beforeEach(() => {
    store = createMemoryStore({ ttlReapIntervalMs: 0 });
  });
  afterEach(() => store.close());

  it('re-runs the callback when another writer changed a document it wrote, so no update is lost', async () => {
    const c = store.collection<{ _id: string; n: number; log: string[] }>('acc');
    await c.insertOne({ _id: 'a', n: 0, log: [] });
    let attempts = 0;
    await store.withTransaction(async (session) => {
      attempts++;
      await c.updateOne({ _id: 'a' }, { $inc: { n: 1 }, $push: { log: 'tx' } }, { session });
      if (attempts === 1) await c.updateOne({ _id: 'a' }, { $inc: { n: 10 }, $push: { log: 'outside' } });
    });
    expect(attempts).toBe(2);
    expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 11, log: ['outside', 'tx'] });
  });

  it('serializes concurrent transactions on the same document without losing increments', async () => {
    const c = store.collection<{ _id: string; n: number }>('ctr');
    await c.insertOne({ _id: 'x', n: 0 });
    await Promise.all(
      Array.from({ length: 5 }, () =>
        store.withTransaction(async (session) => {
          const cur = await c.findOne({ _id: 'x' }, { session });
          await new Promise((r) => setImmediate(r));
          await c.updateOne({ _id: 'x' }, { $set: { n: (cur?.n ?? 0) + 1 } }, { session });
        }),
      ),
    );
    expect((await c.findOne({ _id: 'x' }))?.n).toBe(5);
  });

  it('checks unique indexes against the session view (its own deletes free a key)', async () => {
    const c = store.collection<{ _id: string; slug: string }>('pages');
    await c.createIndex({ keys: { slug: 1 }, unique: true });
    await c.insertOne({ _id: 'p1', slug: 'home' });
    await store.withTransaction(async (session) => {
      await c.deleteOne({ _id: 'p1' }, { session });
      await c.insertOne({ _id: 'p2', slug: 'home' }, { session });
      await expect(c.insertOne({ _id: 'p3', slug: 'home' }, { session })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
    });
    expect(await c.find({})).toEqual([{ _id: 'p2', slug: 'home' }]);
  });

  it('rejects a session once its transaction has ended', async () => {
    const c = store.collection('x');
    let leaked: Parameters<Parameters<EmbeddedStore['withTransaction']>[0]>[0] | undefined;
    await store.withTransaction(async (session) => {
      leaked = session;
    });
    await expect(c.insertOne({}, { session: leaked })).rejects.toThrow('transaction has already ended');
  });
});

describe('EmbeddedStore values', () => {
  it('rejects values it could not store faithfully', async () => {
    const store = createMemoryStore();
    const c = store.collection('x');
    await expect(c.insertOne({ f: () => 1 } as never)).rejects.toThrow(TypeError);
    await expect(c.insertOne({ m: new Map() } as never)).rejects.toThrow(TypeError);
    await expect(c.updateOne({}, { $inc: { n: 'one' } })).rejects.toThrow(TypeError);
    await c.insertOne({ _id: 'a', s: 'text', u: undefined } as never);
    expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', s: 'text', u: null });
    await expect(c.updateOne({ _id: 'a' }, { $inc: { s: 1 } })).rejects.toThrow(TypeError);
    await expect(c.updateOne({ _id: 'a' }, { $set: { _id: 'b' } })).rejects.toThrow(TypeError);
    await store.close();
  });
});

describe('EmbeddedStore indexes', () => {
  const value = fc.oneof(
    fc.constantFrom('x', 'y', 'z'),
    fc.integer({ min: 0, max: 3 }),
    fc.constant(null),
    fc.constantFrom(new Date(0), new Date(5)),
  );
  const docArb = fc.record(
    {
      a: value,
      b: fc.oneof(value, fc.array(value, { maxLength: 3 })),
      u: fc.integer({ min: 0, max: 20 }),
      tags: fc.array(fc.constantFrom('p', 'q', 'r'), { maxLength: 3 }),
      code: fc.oneof(
        fc.constantFrom('x', 'y', 'z'),
        fc.array(fc.constantFrom('x', 'y', 'z'), { maxLength: 2 }),
      ),
      nested: fc.record({ k: value }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  );
  const op = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), doc: docArb }),
    fc.record({ kind: fc.constant('set' as const), id: fc.integer({ min: 0, max: 15 }), doc: docArb }),
    fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 15 }) }),
  );
  const query = fc.oneof(
    fc.record({ a: value }),
    fc.record({ a: value, b: value }),
    fc.record({ u: fc.integer({ min: 0, max: 20 }) }),
    fc.record({ _id: fc.constantFrom('d0', 'd1', 'd2', 'nope') }),
    fc.record({ code: fc.constantFrom('x', 'y', 'z') }),
    fc.record({ tags: fc.constantFrom('p', 'q', 'r') }),
    fc.record({ tags: fc.record({ $in: fc.array(fc.constantFrom('p', 'q', 's'), { maxLength: 2 }) }) }),
    fc.record({ 'nested.k': value }),
    fc.record({ b: fc.record({ $eq: value }) }),
  );

  it('answers equality queries through hash indexes exactly like a full scan, across inserts, updates and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 30 }),
        fc.array(query, { minLength: 1, maxLength: 8 }),
        async (ops, queries) => {
          const store = createMemoryStore({ ttlReapIntervalMs: 0 });
          const c = store.collection('docs');
          await c.createIndex({ keys: { u: 1 }, unique: true, sparse: true });
          await c.createIndex({ keys: { a: 1 } });
          await c.createIndex({ keys: { a: 1, b: 1 } });
          await c.createIndex({ keys: { tags: 1 } });
          await c.createIndex({ keys: { code: 1 }, unique: true, sparse: true }); // multikey unique
          await c.createIndex({ keys: { 'nested.k': 1 } });
          let next = 0;
          for (const o of ops) {
            const attempt =
              o.kind === 'insert'
                ? c.insertOne({ _id: `d${next++ % 16}`, ...o.doc })
                : o.kind === 'set'
                  ? c.replaceOne({ _id: `d${o.id}` }, o.doc)
                  : c.deleteOne({ _id: `d${o.id}` });
            await (attempt as Promise<unknown>).catch((e: unknown) => {
              if (!(e instanceof DuplicateKeyError)) throw e;
            });
          }
          const all = await c.find({});
          const us = all.map((d) => d.u).filter((u) => u !== undefined);
          expect(new Set(us).size).toBe(us.length); // the unique indexes held
          const codes = all.flatMap((d) =>
            Array.isArray(d.code) ? [...new Set(d.code)] : d.code === undefined ? [] : [d.code],
          );
          expect(new Set(codes).size).toBe(codes.length);
          for (const q of queries) {
            const viaIndex = (await c.find(q as Filter)).map((d) => d._id).sort();
            const scan = all
              .filter(mingoMatcher(q as Filter))
              .map((d) => d._id)
              .sort();
            expect(viaIndex).toEqual(scan);
            const one = await c.findOne(q as Filter);
            if (scan.length === 0) expect(one).toBeNull();
            else expect(scan).toContain(one?._id);
          }
          await store.close();
        },
      ),
      { numRuns: 150 },
    );
  });
});
