export * from './condition.port';
