import { Global, Module } from '@nestjs/common';
import { currentLocale } from '@flowplane/platform/http';
import { CatalogTextExpander, RequestLocaleSource } from '../translations/translation.service';
import { SettingsExpander } from './settings-expander.service';

/**
 * Settings tokens for the i18n service: the expander, and the two seams the Translation service
 * reads optionally: token expansion of catalog strings after interpolation and the request locale
 * of the platform middleware. Global, so every feature's providers see them.
 */
@Global()
@Module({
  providers: [
    SettingsExpander,
    { provide: CatalogTextExpander, inject: [SettingsExpander], useFactory: (e: SettingsExpander): CatalogTextExpander => ({ expandPlain: (text, locale) => e.plain(text, locale), onSettingsChanged: (listener) => e.onSettingsChanged(listener) }) },
    { provide: RequestLocaleSource, useValue: { current: currentLocale } satisfies RequestLocaleSource },
  ],
  exports: [SettingsExpander, CatalogTextExpander, RequestLocaleSource],
})
export class SettingsTokensModule {}
