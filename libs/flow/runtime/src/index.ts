export * from './flow-runtime.module';
export * from './flow-runtime.definition';
