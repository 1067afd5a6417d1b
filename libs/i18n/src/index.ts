export * from './i18n.module';
export * from './i18n.definition';
