export * from './engine-util';
export * from './ferretdb-engine';
export * from './kafka-engine';
export * from './test-servers';
