export * from './profiles.module';
export * from './profiles.definition';
