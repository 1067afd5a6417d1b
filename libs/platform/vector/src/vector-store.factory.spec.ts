import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createVectorStore,
  EmbeddedVectorStore,
  QdrantVectorStore,
  VectorValidationError,
  type VectorBackend,
} from './index';

describe('createVectorStore', () => {
  it('builds the embedded adapter, persisted under dir when given', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vector-factory-'));
    try {
      const store = await createVectorStore({ backend: 'embedded', dir });
      expect(store).toBeInstanceOf(EmbeddedVectorStore);
      expect(store.backend).toBe('embedded');
      await store.createIndex('kept', { dim: 2, distance: 'cosine' });
      await store.close();
      const again = await createVectorStore({ backend: 'embedded', dir });
      expect(await again.getIndex('kept')).toEqual({ name: 'kept', dim: 2, distance: 'cosine', count: 0 });
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('builds the Qdrant adapter for vectordb without contacting the server', async () => {
    const store = await createVectorStore({
      backend: 'vectordb',
      url: 'http://127.0.0.1:9',
      apiKey: 'secret',
    });
    expect(store).toBeInstanceOf(QdrantVectorStore);
    expect(store.backend).toBe('vectordb');
    await store.close();
  });

  it('rejects an unknown backend', async () => {
    await expect(createVectorStore({ backend: 'faiss' as VectorBackend })).rejects.toBeInstanceOf(
      VectorValidationError,
    );
  });
});
