export * from './health.controller';
export * from './metrics';
export * from './readiness.registry';
