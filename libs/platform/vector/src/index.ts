export * from './vector-store.port';
export * from './vector-store.errors';
export * from './vector-store.factory';
export {
  EmbeddedVectorStore,
  createEmbeddedVectorStore,
  type EmbeddedVectorStoreOptions,
} from './embedded-vector-store.adapter';
export {
  QdrantVectorStore,
  createQdrantVectorStore,
  toQdrantFilter,
  type QdrantVectorStoreOptions,
} from './qdrant-vector-store.adapter';
export { DEFAULT_HNSW_TUNING, type HnswTuning } from './hnsw-collection.engine';
export {
  compileVectorFilter,
  normalizeVectorFilter,
  isClauseFilter,
  type NormalizedFilter,
  type NormalizedCondition,
  type NormalizeFilterOptions,
  isVerbatimCondition,
  type VerbatimCondition,
  type PointPredicate,
} from './vector-filter.compiler';
export { pointIdFromKey, canonicalPointId, comparePointIds, MAX_VECTOR_DIM } from './vector-input.validator';
export {
  ORIGINAL_ID_KEY,
  MAX_DOCUMENT_ID_LENGTH,
  documentIdText,
  pointIdForDocument,
  documentToPoint,
  documentFromPoint,
} from './vector-document-ids';
export { scrollPages, type ScrollAllOptions } from './vector-scroll.util';
export { POINT_ID_NAMESPACE } from './vector-input.validator';
