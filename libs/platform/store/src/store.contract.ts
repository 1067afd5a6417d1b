/**
 * The one contract every Store engine passes (ARCHITECTURE §7): the embedded engine always, the
 * memory variant always, the MongoDB adapter when TEST_MONGO_URL / MONGO_URL names a server
 * (MongoDB, or FerretDB: docs/engines/ferretdb.md). Each test opens a fresh store and uses fresh
 * collection names; a harness with `reapExpired` gives each store its own database, since reaping
 * sweeps all of it.
 */
import { randomBytes } from 'node:crypto';
import { type Collection, DuplicateKeyError, type Filter, type Store, type StoreDocument } from './store.port';

export interface ContractHarness {
  /** Opens a store to test against (called before each test; closed after it). */
  open(): Promise<Store>;
  /** Deletes expired documents now, for engines whose reaper can be triggered (the embedded one). */
  reapExpired?(store: Store): Promise<number>;
  /** Whether `withTransaction` is atomic on this store (a standalone MongoDB cannot be); default true. */
  atomicTransactions?(store: Store): boolean;
}

interface Person extends StoreDocument {
  name: string;
  age?: number;
  email?: string | null;
  tags?: string[];
  address?: { city: string; zip?: string };
  items?: Array<{ sku: string; qty: number }>;
  createdAt?: Date;
  counter?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Registers the Store contract tests for one engine. */
export function storeContract(harness: ContractHarness): void {
  let store: Store;
  const prefix = `c${randomBytes(3).toString('hex')}`;
  let seq = 0;
  const fresh = <T extends StoreDocument = Person>(): Collection<T> =>
    store.collection<T>(`${prefix}_${++seq}`);

  beforeEach(async () => {
    store = await harness.open();
  });
  afterEach(async () => {
    await store.close();
  });

  async function people(): Promise<Collection<Person>> {
    const c = fresh<Person>();
    await c.insertMany([
      {
        _id: 'ann',
        name: 'Ann',
        age: 31,
        email: 'ann@x.io',
        tags: ['admin', 'dev'],
        address: { city: 'Oslo', zip: '0150' },
        items: [{ sku: 'a', qty: 1 }],
      },
      {
        _id: 'bob',
        name: 'Bob',
        age: 25,
        email: 'bob@x.io',
        tags: ['dev'],
        address: { city: 'Bergen' },
        items: [{ sku: 'b', qty: 5 }],
      },
      { _id: 'cy', name: 'Cy', age: 42, email: null, tags: [], address: { city: 'Oslo' } },
      { _id: 'dee', name: 'Dee', tags: ['ops'] },
    ]);
    return c;
  }
  const ids = (docs: StoreDocument[]) => docs.map((d) => d._id);

  describe('insert and find', () => {
    it('generates a string _id when absent and returns the stored document', async () => {
      const c = fresh();
      const doc = await c.insertOne({ name: 'Ann' });
      expect(typeof doc._id).toBe('string');
      expect(doc._id.length).toBeGreaterThan(0);
      expect(await c.findOne({ _id: doc._id })).toEqual({ _id: doc._id, name: 'Ann' });
      const many = await c.insertMany([{ name: 'B' }, { name: 'C' }]);
      expect(new Set([doc._id, ...ids(many)]).size).toBe(3);
    });

    it('keeps a given _id and rejects a second document with the same _id', async () => {
      const c = fresh();
      await c.insertOne({ _id: 'u1', name: 'Ann' });
      const err = await c.insertOne({ _id: 'u1', name: 'Other' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DuplicateKeyError);
      expect((err as DuplicateKeyError).collection).toBe(c.name);
      expect((err as DuplicateKeyError).key).toEqual({ _id: 'u1' });
      expect(await c.findOne({ _id: 'u1' })).toMatchObject({ name: 'Ann' });
    });

    it('filters by equality, $in, $nin, ranges, $ne, $or, $and, $exists and $regex', async () => {
      const c = await people();
      expect(ids(await c.find({ name: 'Bob' }))).toEqual(['bob']);
      expect(ids(await c.find({ _id: { $in: ['cy', 'ann', 'zzz'] } }, { sort: { _id: 1 } }))).toEqual([
        'ann',
        'cy',
      ]);
      expect(ids(await c.find({ name: { $nin: ['Ann', 'Bob'] } }, { sort: { _id: 1 } }))).toEqual([
        'cy',
        'dee',
      ]);
      expect(ids(await c.find({ age: { $gt: 25, $lt: 42 } }))).toEqual(['ann']);
      expect(ids(await c.find({ age: { $gte: 25, $lte: 42 } }, { sort: { age: 1 } }))).toEqual([
        'bob',
        'ann',
        'cy',
      ]);
      expect(ids(await c.find({ age: { $ne: 31 } }, { sort: { _id: 1 } }))).toEqual(['bob', 'cy', 'dee']);
      expect(ids(await c.find({ $or: [{ age: 25 }, { name: 'Dee' }] }, { sort: { _id: 1 } }))).toEqual([
        'bob',
        'dee',
      ]);
      expect(
        ids(await c.find({ $and: [{ age: { $gt: 20 } }, { 'address.city': 'Oslo' }] }, { sort: { _id: 1 } })),
      ).toEqual(['ann', 'cy']);
      expect(ids(await c.find({ age: { $exists: false } }))).toEqual(['dee']);
      expect(ids(await c.find({ email: { $exists: true } }, { sort: { _id: 1 } }))).toEqual([
        'ann',
        'bob',
        'cy',
      ]);
      expect(ids(await c.find({ name: { $regex: '^[AB]' } }, { sort: { _id: 1 } }))).toEqual(['ann', 'bob']);
    });

    it('matches null against missing and null fields', async () => {
      const c = await people();
      expect(ids(await c.find({ email: null }, { sort: { _id: 1 } }))).toEqual(['cy', 'dee']);
      expect(ids(await c.find({ email: { $ne: null } }, { sort: { _id: 1 } }))).toEqual(['ann', 'bob']);
    });

    it('queries dotted paths and arrays', async () => {
      const c = await people();
      expect(ids(await c.find({ 'address.city': 'Oslo' }, { sort: { _id: 1 } }))).toEqual(['ann', 'cy']);
      expect(ids(await c.find({ 'address.zip': { $exists: true } }))).toEqual(['ann']);
      expect(ids(await c.find({ tags: 'dev' }, { sort: { _id: 1 } }))).toEqual(['ann', 'bob']);
      expect(ids(await c.find({ tags: { $all: ['admin', 'dev'] } }))).toEqual(['ann']);
      expect(ids(await c.find({ tags: { $size: 0 } }))).toEqual(['cy']);
      expect(ids(await c.find({ 'items.sku': 'b' }))).toEqual(['bob']);
      expect(ids(await c.find({ items: { $elemMatch: { sku: 'a', qty: { $gte: 1 } } } }))).toEqual(['ann']);
      expect(ids(await c.find({ 'items.qty': { $gt: 2 } }))).toEqual(['bob']);
      expect(ids(await c.find({ tags: ['dev'] }))).toEqual(['bob']);
    });

    it('sorts (ascending, descending, compound, missing first), skips, limits and projects', async () => {
      const c = await people();
      expect(ids(await c.find({}, { sort: { age: 1 } }))).toEqual(['dee', 'bob', 'ann', 'cy']);
      expect(ids(await c.find({}, { sort: { age: -1 } }))).toEqual(['cy', 'ann', 'bob', 'dee']);
      expect(ids(await c.find({}, { sort: { 'address.city': 1, name: -1 } }))).toEqual([
        'dee',
        'bob',
        'cy',
        'ann',
      ]);
      expect(ids(await c.find({}, { sort: { age: 1 }, skip: 1, limit: 2 }))).toEqual(['bob', 'ann']);
      expect(await c.find({ _id: 'ann' }, { projection: { name: 1, 'address.city': 1 } })).toEqual([
        { _id: 'ann', name: 'Ann', address: { city: 'Oslo' } },
      ]);
      expect(await c.find({ _id: 'bob' }, { projection: { name: 1, _id: 0 } })).toEqual([{ name: 'Bob' }]);
      const excluded = await c.findOne(
        { _id: 'ann' },
        { projection: { items: 0, tags: 0, 'address.zip': 0 } },
      );
      expect(excluded).toEqual({
        _id: 'ann',
        name: 'Ann',
        age: 31,
        email: 'ann@x.io',
        address: { city: 'Oslo' },
      });
      expect(await c.findOne({}, { sort: { age: -1 } })).toMatchObject({ _id: 'cy' });
    });

    it('iterates a cursor in batches over the same result as find', async () => {
      const c = fresh<{ _id: string; n: number }>();
      await c.insertMany(
        Array.from({ length: 25 }, (_, n) => ({ _id: `d${String(n).padStart(2, '0')}`, n })),
      );
      const seen: number[] = [];
      for await (const d of c.cursor({ n: { $gte: 5 } }, { sort: { n: -1 }, batchSize: 4 })) seen.push(d.n);
      expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => 24 - i));
      expect(
        (await c.cursor({}, { skip: 20, sort: { n: 1 }, batchSize: 2 }).toArray()).map((d) => d.n),
      ).toEqual([20, 21, 22, 23, 24]);
      const early = c.cursor({}, { batchSize: 3 });
      let taken = 0;
      for await (const _ of early) {
        if (++taken === 2) break;
      }
      await early.close();
      expect(taken).toBe(2);
    });

    it('counts documents', async () => {
      const c = await people();
      expect(await c.countDocuments()).toBe(4);
      expect(await c.countDocuments({ 'address.city': 'Oslo' })).toBe(2);
      expect(await c.countDocuments({ name: 'nobody' })).toBe(0);
      expect(await fresh().countDocuments({})).toBe(0);
    });
  });

  describe('updates', () => {
    it('applies $set (nested and dotted), $unset and $inc', async () => {
      const c = await people();
      const r = await c.updateOne(
        { _id: 'ann' },
        {
          $set: { 'address.city': 'Rome', 'profile.lang': 'it' },
          $unset: { email: '' },
          $inc: { age: 1, counter: 5 },
        },
      );
      expect(r).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
      const ann = await c.findOne({ _id: 'ann' });
      expect(ann).toMatchObject({
        age: 32,
        counter: 5,
        address: { city: 'Rome', zip: '0150' },
        profile: { lang: 'it' },
      });
      expect(ann).not.toHaveProperty('email');
      await c.updateOne({ _id: 'ann' }, { $inc: { age: -2 } });
      expect((await c.findOne({ _id: 'ann' }))?.age).toBe(30);
    });

    it('applies $push (with $each), $addToSet (ignoring duplicates) and $pull', async () => {
      const c = await people();
      await c.updateOne({ _id: 'bob' }, { $push: { tags: 'ops' } });
      await c.updateOne({ _id: 'bob' }, { $push: { tags: { $each: ['x', 'y'] } } });
      expect((await c.findOne({ _id: 'bob' }))?.tags).toEqual(['dev', 'ops', 'x', 'y']);
      const dup = await c.updateOne({ _id: 'bob' }, { $addToSet: { tags: 'dev' } });
      expect(dup.modifiedCount).toBe(0);
      await c.updateOne({ _id: 'bob' }, { $addToSet: { tags: { $each: ['x', 'z'] } } });
      expect((await c.findOne({ _id: 'bob' }))?.tags).toEqual(['dev', 'ops', 'x', 'y', 'z']);
      await c.updateOne({ _id: 'bob' }, { $pull: { tags: { $in: ['x', 'y'] } } });
      expect((await c.findOne({ _id: 'bob' }))?.tags).toEqual(['dev', 'ops', 'z']);
      await c.updateOne({ _id: 'dee' }, { $push: { items: { sku: 'new', qty: 2 } } });
      expect((await c.findOne({ _id: 'dee' }))?.items).toEqual([{ sku: 'new', qty: 2 }]);
    });

    it('reports matched and modified counts and leaves unchanged documents alone', async () => {
      const c = await people();
      expect(await c.updateOne({ _id: 'ann' }, { $set: { name: 'Ann' } })).toMatchObject({
        matchedCount: 1,
        modifiedCount: 0,
      });
      expect(await c.updateOne({ _id: 'nobody' }, { $set: { name: 'X' } })).toMatchObject({
        matchedCount: 0,
        modifiedCount: 0,
      });
      const many = await c.updateMany({ 'address.city': 'Oslo' }, { $set: { region: 'east' } });
      expect(many).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
      expect(await c.countDocuments({ region: 'east' })).toBe(2);
    });

    it('upserts with the filter equality fields, $set and $setOnInsert, and only inserts once', async () => {
      const c = fresh<{ _id: string; key: string; hits: number; first?: string; last?: string }>();
      const r1 = await c.updateOne(
        { key: 'k1' },
        { $inc: { hits: 1 }, $set: { last: 'a' }, $setOnInsert: { first: 'a' } },
        { upsert: true },
      );
      expect(r1.matchedCount).toBe(0);
      expect(typeof r1.upsertedId).toBe('string');
      const r2 = await c.updateOne(
        { key: 'k1' },
        { $inc: { hits: 1 }, $set: { last: 'b' }, $setOnInsert: { first: 'b' } },
        { upsert: true },
      );
      expect(r2).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
      expect(r2.upsertedId).toBeUndefined();
      expect(await c.find({})).toEqual([{ _id: r1.upsertedId, key: 'k1', hits: 2, first: 'a', last: 'b' }]);
      const r3 = await c.updateOne({ _id: 'fixed' }, { $set: { key: 'k2', hits: 0 } }, { upsert: true });
      expect(r3.upsertedId).toBe('fixed');
      expect(await c.findOne({ key: 'k2' })).toEqual({ _id: 'fixed', key: 'k2', hits: 0 });
    });

    it('findOneAndUpdate returns the document before or after, honours sort and upserts', async () => {
      const c = await people();
      const after = await c.findOneAndUpdate({ _id: 'bob' }, { $inc: { age: 1 } });
      expect(after).toMatchObject({ _id: 'bob', age: 26 });
      const before = await c.findOneAndUpdate(
        { _id: 'bob' },
        { $inc: { age: 1 } },
        { returnDocument: 'before' },
      );
      expect(before).toMatchObject({ _id: 'bob', age: 26 });
      expect((await c.findOne({ _id: 'bob' }))?.age).toBe(27);
      const oldest = await c.findOneAndUpdate(
        { age: { $exists: true } },
        { $set: { picked: true } },
        { sort: { age: -1 } },
      );
      expect(oldest?._id).toBe('cy');
      expect(await c.findOneAndUpdate({ _id: 'nobody' }, { $set: { x: 1 } })).toBeNull();
      expect(
        await c.findOneAndUpdate(
          { name: 'Eve' },
          { $set: { age: 50 } },
          { upsert: true, returnDocument: 'before' },
        ),
      ).toBeNull();
      const created = await c.findOneAndUpdate({ name: 'Fay' }, { $set: { age: 60 } }, { upsert: true });
      expect(created).toMatchObject({ name: 'Fay', age: 60 });
      expect(typeof created?._id).toBe('string');
      expect(await c.countDocuments({ name: { $in: ['Eve', 'Fay'] } })).toBe(2);
    });

    it('replaceOne swaps the whole document but keeps _id, and upserts', async () => {
      const c = await people();
      const r = await c.replaceOne({ name: 'Bob' }, { name: 'Robert', age: 26 });
      expect(r).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
      expect(await c.findOne({ _id: 'bob' })).toEqual({ _id: 'bob', name: 'Robert', age: 26 });
      expect(await c.replaceOne({ name: 'Nobody' }, { name: 'X' })).toMatchObject({
        matchedCount: 0,
        modifiedCount: 0,
      });
      const up = await c.replaceOne({ name: 'Zed' }, { name: 'Zed', age: 1 }, { upsert: true });
      expect(typeof up.upsertedId).toBe('string');
      expect(await c.findOne({ _id: up.upsertedId })).toEqual({ _id: up.upsertedId, name: 'Zed', age: 1 });
    });

    it('deleteOne removes one match and deleteMany all of them', async () => {
      const c = await people();
      expect(await c.deleteOne({ 'address.city': 'Oslo' })).toEqual({ deletedCount: 1 });
      expect(await c.countDocuments({ 'address.city': 'Oslo' })).toBe(1);
      expect(await c.deleteMany({ age: { $exists: true } })).toEqual({ deletedCount: 2 });
      expect(ids(await c.find({}))).toEqual(['dee']);
      expect(await c.deleteMany({})).toEqual({ deletedCount: 1 });
      expect(await c.deleteOne({ _id: 'dee' })).toEqual({ deletedCount: 0 });
    });

    it('applies concurrent updates of one document atomically, losing none', async () => {
      const c = fresh<{ _id: string; n: number; list: number[] }>();
      await c.insertOne({ _id: 'x', n: 0, list: [] });
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? c.updateOne({ _id: 'x' }, { $inc: { n: 1 }, $push: { list: i } })
            : c.findOneAndUpdate({ _id: 'x' }, { $inc: { n: 1 }, $push: { list: i } }),
        ),
      );
      const x = await c.findOne({ _id: 'x' });
      expect(x?.n).toBe(20);
      expect([...(x?.list ?? [])].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it('loses no update when writes by id, by other fields and of many documents run at once', async () => {
      const c = fresh<{ _id: string; name: string; n: number }>();
      await c.insertMany(Array.from({ length: 6 }, (_, i) => ({ _id: `d${i}`, name: `n${i}`, n: 0 })));
      const writes: Array<Promise<unknown>> = [];
      for (let round = 0; round < 4; round++) {
        for (let i = 0; i < 6; i++) {
          writes.push(c.updateOne({ _id: `d${i}` }, { $inc: { n: 1 } }));
          writes.push(c.updateOne({ name: `n${i}` }, { $inc: { n: 1 } }));
        }
        writes.push(c.updateMany({}, { $inc: { n: 1 } }));
      }
      await Promise.all(writes);
      expect((await c.find({}, { sort: { _id: 1 } })).map((d) => d.n)).toEqual([12, 12, 12, 12, 12, 12]);
    });

    it('rejects update documents without operators', async () => {
      const c = await people();
      await expect(c.updateOne({ _id: 'ann' }, { name: 'X' } as never)).rejects.toThrow();
      expect((await c.findOne({ _id: 'ann' }))?.name).toBe('Ann');
    });
  });

  describe('indexes', () => {
    it('enforces a unique index on insert, on update and on upsert', async () => {
      const c = await people();
      const name = await c.createIndex({ keys: { email: 1 }, unique: true, sparse: true });
      expect(name).toBe('email_1');
      expect(await c.createIndex({ keys: { email: 1 }, unique: true, sparse: true })).toBe('email_1');
      const onInsert = await c.insertOne({ name: 'Eve', email: 'ann@x.io' }).catch((e: unknown) => e);
      expect(onInsert).toBeInstanceOf(DuplicateKeyError);
      expect(onInsert).toMatchObject({ collection: c.name, index: 'email_1', key: { email: 'ann@x.io' } });
      const onUpdate = await c
        .updateOne({ _id: 'bob' }, { $set: { email: 'ann@x.io' } })
        .catch((e: unknown) => e);
      expect(onUpdate).toBeInstanceOf(DuplicateKeyError);
      expect((await c.findOne({ _id: 'bob' }))?.email).toBe('bob@x.io');
      const onUpsert = await c
        .updateOne({ name: 'Ghost' }, { $set: { email: 'bob@x.io' } }, { upsert: true })
        .catch((e: unknown) => e);
      expect(onUpsert).toBeInstanceOf(DuplicateKeyError);
      expect(await c.findOne({ name: 'Ghost' })).toBeNull();
      const onReplace = await c
        .replaceOne({ _id: 'cy' }, { name: 'Cy', email: 'bob@x.io' })
        .catch((e: unknown) => e);
      expect(onReplace).toBeInstanceOf(DuplicateKeyError);
    });

    it('keeps indexed lookups right as documents change', async () => {
      const c = await people();
      await c.createIndex({ keys: { email: 1 }, unique: true, sparse: true });
      await c.createIndex({ keys: { tags: 1 } });
      await c.updateOne({ _id: 'ann' }, { $set: { email: 'ann@new.io' }, $pull: { tags: 'dev' } });
      expect(await c.findOne({ email: 'ann@x.io' })).toBeNull();
      expect((await c.findOne({ email: 'ann@new.io' }))?._id).toBe('ann');
      expect(ids(await c.find({ tags: 'dev' }))).toEqual(['bob']);
      expect(ids(await c.find({ tags: { $in: ['admin', 'ops'] } }, { sort: { _id: 1 } }))).toEqual([
        'ann',
        'dee',
      ]);
      await c.deleteOne({ _id: 'bob' });
      expect(await c.findOne({ email: 'bob@x.io' })).toBeNull();
      await c.insertOne({ name: 'Bob2', email: 'bob@x.io' });
      expect((await c.findOne({ email: 'bob@x.io' }))?.name).toBe('Bob2');
      expect(ids(await c.find({ email: 'ann@new.io', name: 'Nope' }))).toEqual([]);
    });

    it('keeps every kind of index right after updates that do and do not touch indexed fields', async () => {
      type Chat = { _id: string; session: string; user?: string; at: Date; flow: string; tags: string[]; info: { city: string }; runs: string[]; n: number };
      const c = fresh<Chat>();
      await c.createIndex({ keys: { session: 1 }, unique: true });
      await c.createIndex({ keys: { at: 1 } });
      await c.createIndex({ keys: { user: 1, at: -1 } });
      await c.createIndex({ keys: { flow: 1, at: -1 } });
      await c.createIndex({ keys: { tags: 1 } });
      await c.createIndex({ keys: { 'info.city': 1 } });
      const t0 = new Date('2026-01-01T00:00:00Z');
      const t1 = new Date('2026-01-02T00:00:00Z');
      await c.insertMany([
        { _id: 'a', session: 's-a', user: 'u1', at: t0, flow: 'f', tags: ['x'], info: { city: 'Oslo' }, runs: [], n: 0 },
        { _id: 'b', session: 's-b', at: t0, flow: 'f', tags: ['y'], info: { city: 'Bergen' }, runs: [], n: 0 },
      ]);
      const check = async (want: Record<string, string[]>) => {
        const got: Record<string, string[]> = {};
        for (const [k, f] of Object.entries({
          sA: { session: 's-a' },
          sA2: { session: 's-a2' },
          at0: { at: t0 },
          at1: { at: t1 },
          u1at0: { user: 'u1', at: t0 },
          u1at1: { user: 'u1', at: t1 },
          u2: { user: 'u2' },
          fat0: { flow: 'f', at: t0 },
          fat1: { flow: 'f', at: t1 },
          x: { tags: 'x' },
          z: { tags: 'z' },
          oslo: { 'info.city': 'Oslo' },
          rome: { 'info.city': 'Rome' },
        } as Record<string, Filter>)) {
          got[k] = ids(await c.find(f, { sort: { _id: 1 } }));
        }
        expect(got).toEqual(want);
      };
      // Updates that leave every indexed field as it was (a Date set again to the same instant too).
      await c.updateOne({ session: 's-a' }, { $addToSet: { runs: 'r1' }, $inc: { n: 1 } });
      await c.updateOne({ _id: 'a' }, { $set: { at: new Date(t0.getTime()), user: 'u1', tags: ['x'], info: { city: 'Oslo' } } });
      await c.findOneAndUpdate({ session: 's-a' }, { $push: { runs: 'r2' } });
      const same = {
        sA: ['a'], sA2: [], at0: ['a', 'b'], at1: [], u1at0: ['a'], u1at1: [], u2: [], fat0: ['a', 'b'], fat1: [],
        x: ['a'], z: [], oslo: ['a'], rome: [],
      };
      await check(same);
      expect((await c.findOne({ session: 's-a' }))?.runs).toEqual(['r1', 'r2']);
      // Updates that move indexed fields: every index follows, the others stay.
      await c.updateOne({ session: 's-a' }, { $set: { at: t1, session: 's-a2', user: 'u2', 'info.city': 'Rome' }, $push: { tags: 'z' } });
      await check({
        sA: [], sA2: ['a'], at0: ['b'], at1: ['a'], u1at0: [], u1at1: [], u2: ['a'], fat0: ['b'], fat1: ['a'],
        x: ['a'], z: ['a'], oslo: [], rome: ['a'],
      });
      // The old unique key is free again; the new one is taken.
      await c.insertOne({ _id: 'c', session: 's-a', at: t0, flow: 'g', tags: [], info: { city: 'Oslo' }, runs: [], n: 0 });
      await expect(c.updateOne({ _id: 'b' }, { $set: { session: 's-a2', n: 5 } })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.findOne({ _id: 'b' })).toMatchObject({ session: 's-b', n: 0 });
      expect(ids(await c.find({ session: 's-b' }))).toEqual(['b']);
      // A field removed from the document indexes as null again.
      await c.updateOne({ _id: 'a' }, { $unset: { user: '' } });
      expect(ids(await c.find({ user: null, at: t1 }))).toEqual(['a']);
      expect(ids(await c.find({ user: 'u2' }))).toEqual([]);
    });

    it('lets an update take the unique key of an expired document', async () => {
      const c = fresh<{ _id: string; key: string; at: Date }>();
      await c.createIndex({ keys: { at: 1 }, expireAfterSeconds: 1 });
      await c.createIndex({ keys: { key: 1 }, unique: true });
      await c.insertOne({ _id: 'old', key: 'k', at: new Date(Date.now() - 10_000) });
      await c.insertOne({ _id: 'live', key: 'other', at: new Date() });
      await c.updateOne({ _id: 'live' }, { $set: { key: 'k' } });
      expect(ids(await c.find({ key: 'k' }))).toEqual(['live']);
      expect(await c.find({ key: 'other' })).toEqual([]);
    });

    it('enforces compound unique indexes on the combination', async () => {
      const c = fresh<{ _id: string; tenant: string; slug: string }>();
      await c.createIndex({ keys: { tenant: 1, slug: 1 }, unique: true });
      await c.insertOne({ tenant: 't1', slug: 'home' });
      await c.insertOne({ tenant: 't2', slug: 'home' });
      await c.insertOne({ tenant: 't1', slug: 'about' });
      const err = await c.insertOne({ tenant: 't1', slug: 'home' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DuplicateKeyError);
      expect((err as DuplicateKeyError).index).toBe('tenant_1_slug_1');
      expect((await c.findOne({ tenant: 't1', slug: 'about' }))?.slug).toBe('about');
      expect(await c.countDocuments({ slug: 'home' })).toBe(2);
    });

    it('keeps compound indexes with missing fields and arrays right (sparse, unique, multikey)', async () => {
      const c = fresh<{ _id: string; a?: string; b?: string | string[]; n?: number }>();
      await c.createIndex({ keys: { a: 1, b: 1 }, unique: true, sparse: true });
      await c.insertMany([{ _id: 'none1' }, { _id: 'none2' }, { _id: 'a-only', a: 'x' }, { _id: 'multi', a: 'y', b: ['p', 'q'] }]);
      await expect(c.insertOne({ a: 'x' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.insertOne({ a: 'y', b: 'q' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await c.insertOne({ _id: 'yr', a: 'y', b: 'r' });
      expect(ids(await c.find({ a: 'y', b: 'p' }))).toEqual(['multi']);
      expect(ids(await c.find({ a: 'x', b: null }))).toEqual(['a-only']);
      await c.updateOne({ _id: 'multi' }, { $set: { b: 'p' } });
      await c.insertOne({ _id: 'yq', a: 'y', b: 'q' });
      expect(ids(await c.find({ a: 'y', b: 'q' }))).toEqual(['yq']);
      await c.updateOne({ _id: 'none1' }, { $set: { n: 1 } });
      await c.insertOne({ _id: 'none3' });
      expect(await c.countDocuments({ a: null, b: null })).toBe(3);
    });

    it('lets a sparse unique index hold many documents without the field, unlike a non-sparse one', async () => {
      const sparse = fresh<{ _id: string; code?: string }>();
      await sparse.createIndex({ keys: { code: 1 }, unique: true, sparse: true });
      await sparse.insertMany([{}, {}, { code: 'a' }]);
      await expect(sparse.insertOne({ code: 'a' })).rejects.toBeInstanceOf(DuplicateKeyError);
      const dense = fresh<{ _id: string; code?: string }>();
      await dense.createIndex({ keys: { code: 1 }, unique: true });
      await dense.insertOne({});
      await expect(dense.insertOne({})).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    it('lets exactly one of concurrent writers take a unique key (also the missing-field key)', async () => {
      const c = fresh<{ _id: string; code?: string; n: number }>();
      await c.createIndex({ keys: { code: 1 }, unique: true });
      for (const doc of [{ code: 'k' }, {}]) {
        const writes = Array.from({ length: 6 }, (_, n) => c.insertOne({ ...doc, n }));
        const results = await Promise.allSettled(writes);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) {
          if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DuplicateKeyError);
        }
      }
      expect(await c.countDocuments()).toBe(2);
    });

    it('refuses to build a unique index over existing duplicates', async () => {
      const c = await people();
      await c.insertOne({ name: 'Ann' });
      await expect(c.createIndex({ keys: { name: 1 }, unique: true })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      await c.insertOne({ name: 'Ann' });
      expect(await c.countDocuments({ name: 'Ann' })).toBe(3);
    });
  });

  describe('TTL', () => {
    it('hides expired documents from find, findOne, count, update and delete immediately', async () => {
      const c = fresh<{ _id: string; createdAt?: Date | string; n: number }>();
      await c.createIndex({ keys: { createdAt: 1 }, expireAfterSeconds: 60 });
      const now = Date.now();
      await c.insertMany([
        { _id: 'old', createdAt: new Date(now - 120_000), n: 1 },
        { _id: 'new', createdAt: new Date(now), n: 2 },
        { _id: 'none', n: 3 },
        { _id: 'text', createdAt: 'not a date', n: 4 },
      ]);
      expect(ids(await c.find({}, { sort: { n: 1 } }))).toEqual(['new', 'none', 'text']);
      expect(await c.findOne({ _id: 'old' })).toBeNull();
      expect(await c.countDocuments()).toBe(3);
      expect(await c.countDocuments({ n: { $lt: 3 } })).toBe(1);
      expect(await c.updateOne({ _id: 'old' }, { $set: { n: 9 } })).toMatchObject({ matchedCount: 0 });
      expect(await c.deleteOne({ _id: 'old' })).toEqual({ deletedCount: 0 });
    });

    it('hides a document as soon as it expires, without waiting for the reaper', async () => {
      const c = fresh<{ _id: string; expiresAt: Date }>();
      await c.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
      await c.insertOne({ _id: 'soon', expiresAt: new Date(Date.now() + 300) });
      expect(await c.findOne({ _id: 'soon' })).not.toBeNull();
      await sleep(400);
      expect(await c.findOne({ _id: 'soon' })).toBeNull();
      expect(await c.find({})).toEqual([]);
      expect(await c.countDocuments()).toBe(0);
    });

    it('lets a new document take the unique key of an expired one', async () => {
      const c = fresh<{ _id: string; key: string; at: Date }>();
      await c.createIndex({ keys: { at: 1 }, expireAfterSeconds: 1 });
      await c.createIndex({ keys: { key: 1 }, unique: true });
      await c.insertOne({ _id: 'a', key: 'k', at: new Date(Date.now() - 10_000) });
      await c.insertOne({ _id: 'b', key: 'k', at: new Date() });
      expect(ids(await c.find({ key: 'k' }))).toEqual(['b']);
      await c.insertOne({ _id: 'c', key: 'other', at: new Date(Date.now() - 10_000) });
      await c.insertOne({ _id: 'c', key: 'other2', at: new Date() });
      expect((await c.findOne({ _id: 'c' }))?.key).toBe('other2');
    });

    if (harness.reapExpired) {
      const reap = harness.reapExpired;
      it('reaper deletes expired documents', async () => {
        const c = fresh<{ _id: string; at: Date }>();
        await c.createIndex({ keys: { at: 1 }, expireAfterSeconds: 1 });
        await c.insertMany([
          { at: new Date(Date.now() - 5000) },
          { at: new Date(Date.now() - 5000) },
          { at: new Date() },
        ]);
        expect(await reap(store)).toBe(2);
        expect(await reap(store)).toBe(0);
        expect(await c.countDocuments()).toBe(1);
      });
    }
  });

  describe('transactions', () => {
    it('commits every write made with the session together and returns the callback result', async () => {
      const orders = fresh<{ _id: string; status: string }>();
      const outbox = fresh<{ _id: string; topic: string }>();
      await orders.insertOne({ _id: 'o1', status: 'new' });
      const result = await store.withTransaction(async (session) => {
        await orders.updateOne({ _id: 'o1' }, { $set: { status: 'paid' } }, { session });
        await orders.insertOne({ _id: 'o2', status: 'new' }, { session });
        await outbox.insertOne({ _id: 'e1', topic: 'orders.updated' }, { session });
        // Reads with the session see the session's own writes.
        expect((await orders.findOne({ _id: 'o1' }, { session }))?.status).toBe('paid');
        expect(await orders.countDocuments({}, { session })).toBe(2);
        return 'done';
      });
      expect(result).toBe('done');
      expect((await orders.findOne({ _id: 'o1' }))?.status).toBe('paid');
      expect(await orders.countDocuments()).toBe(2);
      expect(await outbox.find({})).toEqual([{ _id: 'e1', topic: 'orders.updated' }]);
      // An outbox relay's usual cycle after the commit.
      expect(await outbox.deleteOne({ _id: 'e1' })).toEqual({ deletedCount: 1 });
    });

    it('rolls back every write when the callback throws', async () => {
      const orders = fresh<{ _id: string; status: string }>();
      const outbox = fresh<{ _id: string; topic: string }>();
      await orders.insertOne({ _id: 'o1', status: 'new' });
      const atomic = harness.atomicTransactions?.(store) ?? true;
      const err = await store
        .withTransaction(async (session) => {
          await orders.updateOne({ _id: 'o1' }, { $set: { status: 'paid' } }, { session });
          await outbox.insertOne({ _id: 'e1', topic: 'orders.updated' }, { session });
          throw new Error('boom');
        })
        .catch((e: unknown) => e);
      expect((err as Error).message).toBe('boom');
      if (atomic) {
        expect((await orders.findOne({ _id: 'o1' }))?.status).toBe('new');
        expect(await outbox.countDocuments()).toBe(0);
      } else {
        // Documented fallback on a server without transactions: the writes were not atomic.
        expect((await orders.findOne({ _id: 'o1' }))?.status).toBe('paid');
      }
    });

    it('keeps uncommitted writes invisible outside the session and rolls back on a duplicate key', async () => {
      const c = fresh<{ _id: string; v: number }>();
      await c.insertOne({ _id: 'taken', v: 0 });
      const atomic = harness.atomicTransactions?.(store) ?? true;
      const err = await store
        .withTransaction(async (session) => {
          await c.insertOne({ _id: 'fresh', v: 1 }, { session });
          if (atomic) expect(await c.findOne({ _id: 'fresh' })).toBeNull();
          await c.insertOne({ _id: 'taken', v: 2 }, { session });
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DuplicateKeyError);
      if (atomic) expect(await c.findOne({ _id: 'fresh' })).toBeNull();
      expect((await c.findOne({ _id: 'taken' }))?.v).toBe(0);
    });
  });

  describe('values', () => {
    it('returns copies: mutating results or inputs never changes stored state', async () => {
      const c = fresh<{ _id: string; nested: { list: number[] }; tags: string[] }>();
      const input = { _id: 'x', nested: { list: [1, 2] }, tags: ['a'] };
      const inserted = await c.insertOne(input);
      input.nested.list.push(99);
      inserted.nested.list.push(98);
      inserted.tags.push('mutated');
      const found = await c.findOne({ _id: 'x' });
      expect(found).toEqual({ _id: 'x', nested: { list: [1, 2] }, tags: ['a'] });
      found!.nested.list.length = 0;
      (await c.find({}))[0].tags.push('again');
      const updated = await c.findOneAndUpdate({ _id: 'x' }, { $push: { tags: 'b' } });
      updated!.tags.push('c');
      for await (const d of c.cursor({})) d.nested.list.push(7);
      expect(await c.findOne({ _id: 'x' })).toEqual({ _id: 'x', nested: { list: [1, 2] }, tags: ['a', 'b'] });
    });

    it('round-trips Dates (nested and in arrays) and compares them in filters and sorts', async () => {
      const c = fresh<{ _id: string; at: Date; meta: { seen: Date[] } }>();
      const t0 = new Date('2024-01-01T00:00:00.000Z');
      const t1 = new Date('2024-06-01T12:34:56.789Z');
      await c.insertMany([
        { _id: 'a', at: t1, meta: { seen: [t0, t1] } },
        { _id: 'b', at: t0, meta: { seen: [] } },
      ]);
      const a = await c.findOne({ _id: 'a' });
      expect(a?.at).toBeInstanceOf(Date);
      expect(a?.at.getTime()).toBe(t1.getTime());
      expect(a?.meta.seen[0]).toBeInstanceOf(Date);
      expect(a?.meta.seen.map((d) => d.toISOString())).toEqual([t0.toISOString(), t1.toISOString()]);
      expect(ids(await c.find({ at: { $gt: new Date('2024-03-01') } }))).toEqual(['a']);
      expect(ids(await c.find({ at: t0 }))).toEqual(['b']);
      expect(ids(await c.find({}, { sort: { at: 1 } }))).toEqual(['b', 'a']);
      await c.updateOne({ _id: 'b' }, { $set: { at: t1 } });
      expect((await c.findOne({ _id: 'b' }))?.at.toISOString()).toBe(t1.toISOString());
    });
  });
}
