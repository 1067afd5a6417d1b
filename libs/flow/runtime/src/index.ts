export * from './flow-runtime.definition';
export * from './flow-runtime.env';
export * from './flow-runtime.module';
export * from './scheduler/scheduler.service';
export * from './scheduler/schedules.service';
export * from './nodes/nodes.tokens';
export * from './event-sources/event-sources.service';
