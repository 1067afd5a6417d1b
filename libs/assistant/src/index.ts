export * from './assistant.module';
export * from './assistant.definition';
