import { VectorStoreUnavailableError, VectorValidationError, type VectorStore } from '@flowplane/platform/vector';
import { SearchService } from './search.service';

/** A store whose every call fails with `error`, as a backend answering 4xx or 5xx would. */
function failingStore(error: Error): VectorStore {
  const fail = async () => {
    throw error;
  };
  return new Proxy({ backend: 'vectordb' } as VectorStore, { get: (target, key) => (key in target ? target[key as keyof VectorStore] : fail) });
}

function service(store: VectorStore, prefix = 'tenant7_'): SearchService {
  const settings = { current: async () => ({ indexPrefix: prefix, defaultLimit: 10, defaultDistance: 'cosine', embeddingProvider: 'local-hash', embeddingModel: '' }) };
  const config = { SEARCH_MAX_LIMIT: 100, SEARCH_MAX_BATCH: 1000, SEARCH_EMBEDDING_DIM: 8 };
  return new SearchService(store, config as never, settings as never, {} as never, {} as never);
}

describe('SearchService errors', () => {
  it('names the index as the caller did when a backend 4xx quotes the collection, its alias or a generation', async () => {
    const store = failingStore(new VectorValidationError('Qdrant rejected the request: Wrong input: collection `tenant7_docs.g1x2y3` or alias "tenant7_docs" cannot take this; tenant7_docs2 is another'));
    const err = await service(store).query('docs', { vector: [1, 2, 3, 4, 5, 6, 7, 8] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: 'VECTOR_INPUT_INVALID' });
    expect((err as Error).message).toBe('Qdrant rejected the request: Wrong input: collection `docs` or alias "docs" cannot take this; tenant7_docs2 is another');
  });

  it('leaves 5xx to the generic unavailable answer', async () => {
    const store = failingStore(new VectorStoreUnavailableError('Qdrant answered 500 for tenant7_docs'));
    await expect(service(store).deleteDocuments('docs', ['a'])).rejects.toBeInstanceOf(VectorStoreUnavailableError);
  });
});
