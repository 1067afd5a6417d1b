export * from './i18n.module';
export * from './i18n.definition';
export * from './i18n.env';
export * from './nodes';
export * from './tokens';
export { TranslationService } from './translations/translation.service';
