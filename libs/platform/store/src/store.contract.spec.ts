import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeIntegration } from '@flowplane/platform/testing';
import { EmbeddedStore, createEmbeddedStore, createMemoryStore } from './embedded.store';
import { type MongoStore, createMongoStore } from './mongo.store';
import { storeContract } from './store.contract';

const quiet = { warn: () => undefined };

describe('Store contract: memory', () => {
  storeContract({
    open: async () => createMemoryStore({ logger: quiet }),
    reapExpired: (s) => (s as EmbeddedStore).reapExpired(),
  });
});

describe('Store contract: embedded', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'store-contract-'));
  let n = 0;
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  storeContract({
    open: () => createEmbeddedStore({ dir: path.join(root, `s${++n}`), logger: quiet }),
    reapExpired: (s) => (s as EmbeddedStore).reapExpired(),
  });
});

describeIntegration(
  'Store contract: mongo',
  process.env.MONGO_URL ? false : 'MONGO_URL not set',
  { requiredInCi: false },
  () => {
    const dbName = `flowplane_store_contract_${process.pid}_${Date.now()}`;
    const stores: MongoStore[] = [];
    afterAll(async () => {
      const s = await createMongoStore({ url: process.env.MONGO_URL as string, dbName });
      await s.dropDatabase();
      await s.close();
    });
    storeContract({
      open: async () => {
        const s = await createMongoStore({ url: process.env.MONGO_URL as string, dbName, logger: quiet });
        stores.push(s);
        return s;
      },
      atomicTransactions: (s) => (s as MongoStore).supportsTransactions,
    });
  },
);

describe('Store contract: sanity of the harness', () => {
  it('opens the embedded engine on disk and the memory engine without', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-engine-'));
    const disk = await createEmbeddedStore({ dir });
    const mem = createMemoryStore();
    expect([disk.engine, mem.engine]).toEqual(['embedded', 'memory']);
    expect(disk).toBeInstanceOf(EmbeddedStore);
    await disk.close();
    await mem.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
