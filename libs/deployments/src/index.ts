export * from './deployments.module';
export * from './deployments.definition';
