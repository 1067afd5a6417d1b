import { DECLARED_MODULE_SETTINGS } from '@flowplane/contracts';
import { EmbedderRegistry } from '@flowplane/llm';
import type { ServiceClients, ServiceConfig, ServiceContext } from '@flowplane/platform/service';
import { EmbeddingService } from '../domain/embedding.service';
import type { SearchEnv } from '../search.env';
import { SearchSettings } from './search-settings.service';

const searchField = (key: string) => DECLARED_MODULE_SETTINGS.find((m) => m.module === 'search')!.fields.find((f) => f.key === key)!;

describe('search settings as the profiles service checks them', () => {
  it('offers exactly the embedders the search service registers for search.embedding_provider', () => {
    expect([...(searchField('embedding_provider').options ?? [])].sort()).toEqual(new EmbedderRegistry().ids());
    expect(searchField('embedding_provider').options).toContain(searchField('embedding_provider').default);
  });

  it('bounds search.default_limit by the default SEARCH_MAX_LIMIT (100)', () => {
    expect(searchField('default_limit')).toMatchObject({ integer: true, min: 1, max: 100 });
  });
});

describe('SearchSettings', () => {
  const config = { SEARCH_INDEX_PREFIX: 'svc_', SEARCH_EMBEDDING_PROVIDER: 'local-hash', SEARCH_EMBEDDING_DIM: 8, SEARCH_MAX_LIMIT: 100 } as unknown as ServiceConfig & SearchEnv;
  const stored = (values: Record<string, unknown>) =>
    ({ for: () => ({ get: async () => ({ values, sources: Object.fromEntries(Object.keys(values).map((k) => [k, 'stored'])) }) }) }) as unknown as ServiceClients;
  const embeddings = new EmbeddingService(config, { env: {} } as ServiceContext, null);

  it('ignores a stored embedding provider that is not a registered embedder, so text queries keep embedding', async () => {
    const settings = new SearchSettings(config, stored({ embedding_provider: 'no-such-embedder' }), null, embeddings);
    const current = await settings.current();
    expect(current.embeddingProvider).toBe('local-hash');
    expect((await embeddings.embed(current, ['hello'])).map((v) => v.length)).toEqual([8]);
  });

  it('applies a stored provider that is registered', async () => {
    const settings = new SearchSettings(config, stored({ embedding_provider: ' ollama ' }), null, embeddings);
    expect((await settings.current()).embeddingProvider).toBe('ollama');
  });
});
