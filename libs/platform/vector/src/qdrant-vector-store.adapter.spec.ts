import { createServer } from 'node:net';
import { createQdrantVectorStore } from './qdrant-vector-store.adapter';
import { VectorStoreUnavailableError, VectorValidationError } from './vector-store.errors';

/** A local port with nothing listening on it (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// The behaviour against a real Qdrant is the shared contract (vector-store.contract.spec.ts, when
// VECTORSTORE_URL is set); these cases need no server.
describe('QdrantVectorStore without a reachable server', () => {
  it('reports an unreachable server as 503 on ping and on calls', async () => {
    const store = createQdrantVectorStore({ url: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 2000 });
    await expect(store.ping()).rejects.toBeInstanceOf(VectorStoreUnavailableError);
    await expect(store.getIndex('anything')).rejects.toMatchObject({
      status: 503,
      code: 'VECTOR_STORE_UNAVAILABLE',
    });
    await expect(store.query('anything', { vector: [1, 0], limit: 1 })).rejects.toBeInstanceOf(
      VectorStoreUnavailableError,
    );
  });

  it('rejects invalid input locally, before any request', async () => {
    const store = createQdrantVectorStore({ url: `http://127.0.0.1:${await closedPort()}` });
    await expect(store.upsert('docs', [{ id: 'doc-1', vector: [1, 0] }])).rejects.toBeInstanceOf(
      VectorValidationError,
    );
    await expect(store.query('docs', { vector: [1, Number.NaN], limit: 1 })).rejects.toBeInstanceOf(
      VectorValidationError,
    );
    await expect(store.scroll('docs', { limit: 0 })).rejects.toMatchObject({ status: 400 });
    await expect(store.createIndex('a/b', { dim: 3, distance: 'cosine' })).rejects.toBeInstanceOf(
      VectorValidationError,
    );
  });

  it('rejects calls after close with a 503', async () => {
    const store = createQdrantVectorStore({ url: `http://127.0.0.1:${await closedPort()}` });
    await store.close();
    await expect(store.listIndexes()).rejects.toMatchObject({ status: 503 });
  });
});
