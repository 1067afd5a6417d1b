import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';
import { Sensitive } from './sensitive.decorator';

/** Parses the usual spellings of a boolean env value; anything else is left for validation to reject. */
const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};

/** Splits a comma-separated env value into trimmed, non-empty items. */
const toList = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value;

const TOPIC_SETTING_KEYS = new Set(['partitions', 'replicationFactor', 'retentionMs', 'minInSyncReplicas']);

/**
 * Parses KAFKA_TOPIC_OVERRIDES (`{"<topic>": {"partitions": 12, "retentionMs": 604800000}}`); a
 * value of any other shape is passed on unparsed, so the IsObject check names the variable.
 */
const toTopicOverrides = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  if (value.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return value;
  const out: Record<string, Record<string, number>> = Object.create(null);
  for (const [topic, settings] of Object.entries(parsed)) {
    if (!settings || typeof settings !== 'object' || Array.isArray(settings)) return value;
    for (const [k, v] of Object.entries(settings)) {
      if (!TOPIC_SETTING_KEYS.has(k) || !Number.isInteger(v) || (v as number) < 1) return value;
    }
    out[topic] = settings as Record<string, number>;
  }
  return out;
};

/** HTTP listener and request handling. */
export class HttpEnv {
  @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  PORT = 8080;

  @IsString()
  HOST = '0.0.0.0';

  /** Maximum JSON body size (bytes or a size like `1mb`). */
  @Matches(/^\d+(b|kb|mb)?$/i, { message: 'HTTP_BODY_LIMIT must be a size such as 1048576, 512kb or 1mb' })
  HTTP_BODY_LIMIT = '1mb';

  /** How long in-flight requests may take to finish on SIGTERM before the process exits anyway. */
  @Type(() => Number) @IsInt() @Min(0)
  SHUTDOWN_TIMEOUT_MS = 10000;

  /**
   * Port of a separate listener serving only `GET /metrics`, without a token, for a scraper on a
   * private network. Unset: `/metrics` is on PORT and needs a bearer token with `metrics:read`.
   */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  METRICS_PORT?: number;

  /** Address the metrics listener binds; defaults to HOST. */
  @IsOptional() @IsString()
  METRICS_HOST?: string;
}

/** Logging. */
export class LogEnv {
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = process.env.NODE_ENV === 'test' ? 'silent' : 'info';

  @Transform(toBool) @IsBoolean()
  LOG_PRETTY = false;
}

/** Bearer token verification (ARCHITECTURE §5). */
export class AuthEnv {
  /** HS256 secret for user and service tokens (development). Required unless AUTH_JWKS_URL is set. */
  @Sensitive()
  @ValidateIf((o: AuthEnv) => !o.AUTH_JWKS_URL)
  @IsString({ message: 'AUTH_JWT_SECRET is required when AUTH_JWKS_URL is not set' })
  @MinLength(16, { message: 'AUTH_JWT_SECRET must be at least 16 characters' })
  AUTH_JWT_SECRET?: string;

  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AUTH_JWKS_URL?: string;

  @IsOptional() @IsString()
  AUTH_ISSUER?: string;

  @IsOptional() @IsString()
  AUTH_AUDIENCE?: string;

  /** HS256 secret for service-to-service tokens; defaults to AUTH_JWT_SECRET. Required with AUTH_JWKS_URL. */
  @Sensitive()
  @ValidateIf((o: AuthEnv) => !!o.AUTH_JWKS_URL || o.AUTH_SERVICE_SECRET !== undefined)
  @IsString({ message: 'AUTH_SERVICE_SECRET is required when AUTH_JWKS_URL is set' })
  @MinLength(16)
  AUTH_SERVICE_SECRET?: string;
}

/** Which event bus adapter to use. */
export class BusEnv {
  @IsIn(['memory', 'kafka'])
  BUS: 'memory' | 'kafka' = 'memory';

  /** Delivery attempts before a message is parked on `<topic>.dlq`. */
  @Type(() => Number) @IsInt() @Min(1)
  BUS_MAX_ATTEMPTS = 5;
}

/** Kafka connection, used when BUS=kafka. */
export class KafkaEnv {
  @ValidateIf((o: KafkaEnv & BusEnv) => o.BUS === 'kafka')
  @Transform(toList)
  @IsString({ each: true, message: 'KAFKA_BROKERS must list host:port pairs, comma separated, when BUS=kafka' })
  @Matches(/^[^\s:]+:\d+$/, { each: true, message: 'KAFKA_BROKERS entries must be host:port' })
  KAFKA_BROKERS?: string[];

  @IsString()
  KAFKA_CLIENT_ID = 'flowplane';

  @Transform(toBool) @IsBoolean()
  KAFKA_IDEMPOTENT = false;

  /** Longest a consumer fetch waits on an idle topic; lower means less latency for rare events (cache invalidation). */
  @Type(() => Number) @IsInt() @Min(10) @Max(10000)
  KAFKA_MAX_WAIT_MS = 500;

  /**
   * Consumer session timeout: a member silent this long leaves its group. A new member of a group
   * (a second replica) waits up to about this long for the group to rebalance on some brokers (the
   * mock broker), so tests of several replicas lower it.
   */
  @Type(() => Number) @IsInt() @Min(1000) @Max(300000)
  KAFKA_SESSION_TIMEOUT_MS = 30000;

  /** How often a consumer heartbeats to its group; must be well below KAFKA_SESSION_TIMEOUT_MS. */
  @Type(() => Number) @IsInt() @Min(100) @Max(60000)
  KAFKA_HEARTBEAT_INTERVAL_MS = 3000;

  /** Create the platform's topics through the admin API at start and before first use; off leaves it to an operator. */
  @Transform(toBool) @IsBoolean()
  KAFKA_PROVISION_TOPICS = true;

  /** Partitions of a topic the platform creates: the most consumer replicas that share its work. */
  @Type(() => Number) @IsInt() @Min(1) @Max(10000)
  KAFKA_TOPIC_PARTITIONS = 6;

  /** Copies of each partition of a created topic; unset means min(3, brokers in the cluster). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(32)
  KAFKA_TOPIC_REPLICATION_FACTOR?: number;

  /** `retention.ms` of a created topic; unset keeps the broker's default (7 days in Apache Kafka). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(60000)
  KAFKA_TOPIC_RETENTION_MS?: number;

  /** `min.insync.replicas` of a created topic; unset keeps the broker's default. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(32)
  KAFKA_TOPIC_MIN_INSYNC_REPLICAS?: number;

  /** Per-topic settings, JSON: `{"<topic>": {"partitions": 12, "replicationFactor": 3, "retentionMs": 604800000, "minInSyncReplicas": 2}}`. */
  @IsOptional()
  @Transform(toTopicOverrides)
  @IsObject({
    message:
      'KAFKA_TOPIC_OVERRIDES must be a JSON object of topic name to {partitions, replicationFactor, retentionMs, minInSyncReplicas}, each a positive integer',
  })
  KAFKA_TOPIC_OVERRIDES?: Record<string, Record<string, number>>;
}

/** Which document store engine to use. */
export class StoreEnv {
  @IsIn(['embedded', 'memory', 'mongo'])
  STORE: 'embedded' | 'memory' | 'mongo' = 'embedded';

  /** Root directory of the embedded stores; each service writes under DATA_DIR/<service>. */
  @IsString()
  DATA_DIR = './.data';
}

/** MongoDB connection, used when STORE=mongo. */
export class MongoEnv {
  @Sensitive()
  @ValidateIf((o: MongoEnv & StoreEnv) => o.STORE === 'mongo')
  @Matches(/^mongodb(\+srv)?:\/\/.+/, { message: 'MONGO_URL must be a mongodb:// or mongodb+srv:// URL when STORE=mongo' })
  MONGO_URL?: string;
}

/** Vector store backend. */
export class VectorEnv {
  @IsIn(['embedded', 'vectordb'])
  SEARCH_BACKEND: 'embedded' | 'vectordb' = 'embedded';

  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  VECTORSTORE_URL = 'http://localhost:6333';

  @Sensitive() @IsOptional() @IsString()
  VECTORSTORE_API_KEY?: string;

  /** Embedded backend: KB of vectors an index keeps outside its HNSW graph (searched exactly) before writes index the excess themselves; 0 indexes every write at once. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  VECTOR_INDEXING_THRESHOLD_KB?: number;
}

/** Cross-replica coordination for the hub. */
export class CoordEnv {
  @IsIn(['noop', 'nats', 'redis'])
  COORD: 'noop' | 'nats' | 'redis' = 'noop';

  @ValidateIf((o: CoordEnv) => o.COORD === 'nats')
  @IsString({ message: 'NATS_URL is required when COORD=nats' })
  NATS_URL?: string;

  @Sensitive()
  @ValidateIf((o: CoordEnv) => o.COORD === 'redis')
  @IsString({ message: 'REDIS_URL is required when COORD=redis' })
  REDIS_URL?: string;
}
