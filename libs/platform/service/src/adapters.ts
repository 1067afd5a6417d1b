import path from 'node:path';
import { createEventBus, type EventBus } from '@flowplane/platform/bus';
import { createStore, ensurePrivateDir, type Store } from '@flowplane/platform/store';
import { createVectorStore, type VectorStore } from '@flowplane/platform/vector';
import type { ServiceConfig } from './service-definition';

/** Creates the event bus chosen by BUS (memory or kafka). */
export function busFromConfig(c: ServiceConfig, service: string): EventBus {
  return createEventBus({
    bus: c.BUS as 'memory' | 'kafka',
    maxAttempts: c.BUS_MAX_ATTEMPTS as number,
    kafka:
      c.BUS === 'kafka'
        ? {
            brokers: c.KAFKA_BROKERS as string[],
            clientId: `${c.KAFKA_CLIENT_ID as string}-${service}`,
            idempotent: c.KAFKA_IDEMPOTENT as boolean,
            maxWaitTimeInMs: c.KAFKA_MAX_WAIT_MS as number,
            sessionTimeout: c.KAFKA_SESSION_TIMEOUT_MS as number,
            heartbeatInterval: c.KAFKA_HEARTBEAT_INTERVAL_MS as number,
            provisionTopics: c.KAFKA_PROVISION_TOPICS as boolean,
            topics: {
              partitions: c.KAFKA_TOPIC_PARTITIONS as number,
              replicationFactor: c.KAFKA_TOPIC_REPLICATION_FACTOR as number | undefined,
              retentionMs: c.KAFKA_TOPIC_RETENTION_MS as number | undefined,
              minInSyncReplicas: c.KAFKA_TOPIC_MIN_INSYNC_REPLICAS as number | undefined,
              overrides: c.KAFKA_TOPIC_OVERRIDES as Record<string, Record<string, number>> | undefined,
            },
          }
        : undefined,
    source: `/services/${service}`,
  });
}

/** Creates the document store chosen by STORE: embedded under DATA_DIR/<service>, memory, or MongoDB. */
export async function storeFromConfig(c: ServiceConfig, service: string): Promise<Store> {
  // DATA_DIR holds every service's documents, secrets included: owner-only like the stores in it.
  if (c.STORE === 'embedded') await ensurePrivateDir(path.resolve(c.DATA_DIR as string));
  return createStore({
    engine: c.STORE as 'embedded' | 'memory' | 'mongo',
    dir: path.resolve(c.DATA_DIR as string, service),
    mongoUrl: c.MONGO_URL as string | undefined,
  });
}

/** Creates the vector store chosen by SEARCH_BACKEND: embedded under DATA_DIR/<service>/vectors, or Qdrant. */
export function vectorFromConfig(c: ServiceConfig, service: string): Promise<VectorStore> {
  return createVectorStore({
    backend: c.SEARCH_BACKEND as 'embedded' | 'vectordb',
    dir: c.STORE === 'memory' ? undefined : path.resolve(c.DATA_DIR as string, service, 'vectors'),
    url: c.VECTORSTORE_URL as string,
    apiKey: c.VECTORSTORE_API_KEY as string | undefined,
    embedded:
      c.VECTOR_INDEXING_THRESHOLD_KB === undefined
        ? undefined
        : { hnsw: { indexingThresholdBytes: Number(c.VECTOR_INDEXING_THRESHOLD_KB) * 1024 } },
  });
}
