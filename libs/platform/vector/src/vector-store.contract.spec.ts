import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
// Test-only use of the testing lib, which the boundary rule does not yet exempt for spec files.
import { describeIntegration, qdrantTestServer } from '@flowplane/platform/testing';
import { createEmbeddedVectorStore } from './embedded-vector-store.adapter';
import { createQdrantVectorStore } from './qdrant-vector-store.adapter';
import { vectorStoreContract } from './vector-store.contract';

describe('VectorStore contract: embedded (memory)', () => {
  vectorStoreContract({ open: () => createEmbeddedVectorStore(), durable: false });
});

// Every write straight into the HNSW graph (no pending tail), as before deferred indexing.
describe('VectorStore contract: embedded (memory, indexed on write)', () => {
  vectorStoreContract({ open: () => createEmbeddedVectorStore({ hnsw: { indexingThresholdBytes: 0 } }), durable: false });
});

describe('VectorStore contract: embedded (persisted)', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'vector-contract-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  // A long flush delay: persistence across reopen must come from close(), not from a lucky timer.
  vectorStoreContract({
    open: () => createEmbeddedVectorStore({ dir, flushDelayMs: 60_000 }),
    durable: true,
  });
});

// A real Qdrant: TEST_QDRANT_URL, else a container where Docker answers. None can run on these
// machines, so CI keeps this a named skip; qdrant-requests.spec.ts holds the adapter's requests
// against Qdrant's REST schema instead.
const qdrant = qdrantTestServer();
describeIntegration(`VectorStore contract: qdrant (${qdrant.source})`, qdrant.unavailable, { requiredInCi: false }, () => {
  let server: Awaited<ReturnType<typeof qdrant.start>> | undefined;
  beforeAll(async () => {
    server = await qdrant.start();
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
  });
  vectorStoreContract({
    open: async () => createQdrantVectorStore({ url: server!.url, apiKey: server!.apiKey }),
    durable: true,
  });
});
