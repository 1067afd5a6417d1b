/**
 * Picks the VectorStore adapter from configuration (`SEARCH_BACKEND=embedded|vectordb`), so apps
 * wire one call and domain code never names an adapter.
 */
import { createEmbeddedVectorStore, type EmbeddedVectorStoreOptions } from './embedded-vector-store.adapter';
import { createQdrantVectorStore } from './qdrant-vector-store.adapter';
import { VectorValidationError } from './vector-store.errors';
import type { VectorBackend, VectorStore } from './vector-store.port';

/** Spec default of `VECTORSTORE_URL`. */
export const DEFAULT_VECTORSTORE_URL = 'http://localhost:6333';

export interface VectorStoreOptions {
  backend: VectorBackend;
  /** embedded: persistence directory (for example `DATA_DIR/search/vectors`); absent = memory only. */
  dir?: string;
  /** vectordb: Qdrant endpoint (`VECTORSTORE_URL`), default http://localhost:6333. */
  url?: string;
  /** vectordb: `VECTORSTORE_API_KEY`; empty means none. */
  apiKey?: string;
  /** embedded: extra adapter options (flush delay, HNSW tuning). */
  embedded?: Omit<EmbeddedVectorStoreOptions, 'dir'>;
}

/**
 * The VectorStore adapter for `options.backend`. The embedded store is loaded before this resolves
 * (a corrupt directory fails startup); Qdrant is not contacted: `ping()` is its readiness check.
 */
export async function createVectorStore(options: VectorStoreOptions): Promise<VectorStore> {
  switch (options.backend) {
    case 'embedded':
      return createEmbeddedVectorStore({ ...options.embedded, dir: options.dir });
    case 'vectordb':
      return createQdrantVectorStore({
        url: options.url || DEFAULT_VECTORSTORE_URL,
        apiKey: options.apiKey || undefined,
      });
    default:
      throw new VectorValidationError(
        `unknown vector backend ${JSON.stringify((options as { backend: unknown }).backend)}; use embedded or vectordb`,
      );
  }
}
