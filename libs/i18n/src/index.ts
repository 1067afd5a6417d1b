export * from './i18n.module';
export * from './i18n.definition';
export * from './i18n.env';
