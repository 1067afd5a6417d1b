export * from './env-fragments';
export * from './load-config';
export * from './sensitive.decorator';
export * from './secrets-keyring';
export * from './bus-mode';
export * from './node-flags';
