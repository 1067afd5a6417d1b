import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeIntegration, mongoTestServer } from '@flowplane/platform/testing';
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

// A real MongoDB-wire server (MongoDB, or FerretDB: docs/engines/ferretdb.md): TEST_MONGO_URL
// (npm run engines:up starts FerretDB), else a MongoDB
// replica set through testcontainers where Docker answers, else one SKIPPED line.
const mongoServer = mongoTestServer();
describeIntegration(
  `Store contract: mongo (${mongoServer.source})`,
  mongoServer.unavailable,
  { requiredInCi: true },
  () => {
    let mongoUrl = '';
    let server: Awaited<ReturnType<typeof mongoServer.start>> | undefined;
    beforeAll(async () => {
      server = await mongoServer.start();
      mongoUrl = server.url;
    }, 240_000);
    // One database per store: the reaper sweeps a whole database, like the embedded engine's
    // sweeps the whole store, so tests must not see each other's expired documents.
    const dbBase = `flowplane_store_contract_${process.pid}_${Date.now()}`;
    const dbNames: string[] = [];
    afterAll(async () => {
      for (const dbName of dbNames) {
        const s = await createMongoStore({ url: mongoUrl, dbName, logger: quiet });
        await s.dropDatabase();
        await s.close();
      }
      await server?.stop();
    });
    storeContract({
      open: async () => {
        const dbName = `${dbBase}_${dbNames.length + 1}`;
        dbNames.push(dbName);
        return createMongoStore({ url: mongoUrl, dbName, logger: quiet });
      },
      // The adapter's reaper where the server has no TTL indexes (FerretDB 1.x); elsewhere it does
      // early what MongoDB's TTL monitor does.
      reapExpired: (s) => (s as MongoStore).reapExpired(),
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
