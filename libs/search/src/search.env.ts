import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { Sensitive } from '@flowplane/platform/config';

const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};

/** Search settings read at startup (spec "Search concepts", Configuration); the runtime settings `search.*` override the first three. */
export class SearchEnv {
  /** Stamped on every backend index name (runtime setting `search.index_prefix` overrides it). */
  @Matches(/^[A-Za-z0-9_-]{0,40}$/, { message: 'SEARCH_INDEX_PREFIX may hold up to 40 letters, digits, "_" or "-"' })
  SEARCH_INDEX_PREFIX = 'svc_';

  /** Embedding provider id: local-hash (offline default), openai-compatible, openai, ollama. */
  @IsString()
  SEARCH_EMBEDDING_PROVIDER = 'local-hash';

  /** Embedding model name (provider default when empty). */
  @IsOptional() @IsString()
  SEARCH_EMBEDDING_MODEL?: string;

  /** Vector length of the embedding model; must match the model (768 nomic-embed-text, 1024, 1536...). */
  @Type(() => Number) @IsInt() @Min(8) @Max(65_536)
  SEARCH_EMBEDDING_DIM = 768;

  /** Base URL of an OpenAI-compatible embeddings endpoint (provider preset when empty). */
  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  SEARCH_EMBEDDING_BASE_URL?: string;

  /** API key of the embeddings endpoint. */
  @Sensitive() @IsOptional() @IsString()
  SEARCH_EMBEDDING_API_KEY?: string;

  /** Largest `limit` a query may ask for; larger ones are capped to it. */
  @Type(() => Number) @IsInt() @Min(1) @Max(10_000)
  SEARCH_MAX_LIMIT = 100;

  /** Most documents in one upsert request (and ids in one delete). */
  @Type(() => Number) @IsInt() @Min(1) @Max(100_000)
  SEARCH_MAX_BATCH = 1000;

  /** Register svc/search-upsert and svc/search-query with flow-runtime at startup (retried until it answers). */
  @Transform(toBool) @IsBoolean()
  SEARCH_REGISTER_NODES = true;

  /** Base URL flow-runtime uses to reach this service's node routes; default SEARCH_URL, else the address this process listens on. */
  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  SEARCH_NODE_BASE_URL?: string;
}
