export * from './health.controller';
export * from './metrics';
export * from './readiness.registry';
export * from './bus-metrics';
