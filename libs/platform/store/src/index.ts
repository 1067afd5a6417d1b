export * from './store.port';
