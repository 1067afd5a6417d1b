export * from './hub-bridge.port';
export * from './nats-hub-bridge.adapter';
export * from './redis-hub-bridge.adapter';
