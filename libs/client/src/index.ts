// @flowplane/client: the browser and Node client kit of the platform.
export { $t, activeLocales, CatalogLoadError, clearFormatCache, configureI18n, createTranslator, formatMessage, i18n, setLanguage, type MessageParams, type PublicLocale, type Translator, type TranslatorOptions } from './i18n';
export * from './api';
export * from './sse';
export * from './errors';
export {};
