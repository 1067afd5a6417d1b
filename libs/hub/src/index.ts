export * from './hub.definition';
export * from './hub.module';
export * from './ws-health';
