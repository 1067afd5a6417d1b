import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
// Test-only use of the testing lib, which the boundary rule does not yet exempt for spec files.
import { describeIntegration } from '@flowplane/platform/testing';
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

describeIntegration(
  'VectorStore contract: qdrant',
  process.env.VECTORSTORE_URL ? false : 'VECTORSTORE_URL not set',
  { requiredInCi: false },
  () => {
    vectorStoreContract({
      open: async () =>
        createQdrantVectorStore({
          url: process.env.VECTORSTORE_URL ?? '',
          apiKey: process.env.VECTORSTORE_API_KEY,
        }),
      durable: true,
    });
  },
);
