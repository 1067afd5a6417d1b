export * from './store.port';
export {
  EmbeddedStore,
  type EmbeddedStoreOptions,
  createEmbeddedStore,
  createMemoryStore,
} from './embedded.store';
export {
  type BadRecord,
  type FsyncPolicy,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  type RepairReport,
  type StoreFileReport,
  type StoreReport,
  StoreRepairError,
  ensurePrivateDir,
  findStoreDirs,
  isStoreDir,
  repairStoreDir,
  verifyStoreDir,
} from './journal.persistence';
export {
  INDEX_METADATA_COLLECTION,
  MongoStore,
  type MongoStoreOptions,
  type ServerProfile,
  UnsupportedByServerError,
  createMongoStore,
} from './mongo.store';
export { type StoreConfig, type StoreEngine, createStore } from './store.factory';
export { type TtlRule, isExpired, withLiveFilter } from './ttl.util';
export { newId } from './document.util';
