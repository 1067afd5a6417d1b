/**
 * Picks the Store engine from configuration (ARCHITECTURE §2: `STORE=embedded|mongo`, plus
 * `memory` for tests), so services never name an engine themselves.
 */
import { type EmbeddedStoreOptions, createEmbeddedStore, createMemoryStore } from './embedded.store';
import { createMongoStore } from './mongo.store';
import type { Store, StoreLogger } from './store.port';

export type StoreEngine = 'embedded' | 'memory' | 'mongo';

export interface StoreConfig {
  engine: StoreEngine;
  /** Directory of the embedded store (one per service: `DATA_DIR/<service>`). Required for `embedded`. */
  dir?: string;
  /** Connection string. Required for `mongo`. */
  mongoUrl?: string;
  /** MongoDB database; defaults to the one in `mongoUrl`. */
  dbName?: string;
  /** Tuning of the embedded engine (fsync policy, compaction, TTL reaper). */
  embedded?: Omit<EmbeddedStoreOptions, 'dir' | 'logger'>;
  logger?: StoreLogger;
}

/** Creates the store an engine configuration asks for. */
export async function createStore(config: StoreConfig): Promise<Store> {
  switch (config.engine) {
    case 'memory':
      return createMemoryStore({ ...config.embedded, logger: config.logger });
    case 'embedded':
      if (!config.dir) throw new TypeError('the embedded store needs a directory (dir)');
      return createEmbeddedStore({ ...config.embedded, dir: config.dir, logger: config.logger });
    case 'mongo':
      if (!config.mongoUrl)
        throw new TypeError('the mongo store needs a connection string (mongoUrl / MONGO_URL)');
      return createMongoStore({ url: config.mongoUrl, dbName: config.dbName, logger: config.logger });
    default:
      throw new TypeError(`unknown store engine ${JSON.stringify((config as { engine: unknown }).engine)}`);
  }
}
