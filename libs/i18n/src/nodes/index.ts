export * from './i18n-node-steps';
export * from './i18n-nodes';
export * from './i18n-nodes.module';
