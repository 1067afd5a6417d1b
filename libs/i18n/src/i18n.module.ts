import { Module } from '@nestjs/common';
import { AutoTranslateFeatureModule } from './auto-translate/auto-translate-feature.module';
import { ContentFeatureModule } from './content/content-feature.module';
import { I18nCoreModule } from './i18n-core.module';
import { LocalesFeatureModule } from './locales/locales-feature.module';
import { I18nNodesModule } from './nodes/i18n-nodes.module';
import { SettingsTokensModule } from './tokens/settings-tokens.module';
import { TranslationsFeatureModule } from './translations/translations-feature.module';
import { TransferFeatureModule } from './transfer/transfer-feature.module';

/**
 * The i18n service: locales, the message catalog and translation rows, and the Translation service.
 * Each feature is a module of its own; add one per line.
 */
@Module({
  imports: [
    I18nCoreModule,
    LocalesFeatureModule,
    TranslationsFeatureModule,
    TransferFeatureModule,
    SettingsTokensModule,
    I18nNodesModule,
    AutoTranslateFeatureModule,
    ContentFeatureModule,
  ],
})
export class I18nModule {}
