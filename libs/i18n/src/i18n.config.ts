import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { I18nEnv } from './i18n.env';

/** The validated I18N_* settings, typed, with the derived source locale. */
@Injectable()
export class I18nConfig {
  /** False under `I18N_STORE=none`: every handler answers 503 `i18n not configured`. */
  readonly enabled: boolean;
  readonly defaultLocale: string;
  readonly fallbackLocale: string;
  /** I18N_SOURCE_LOCALE, else the fallback locale. */
  readonly sourceLocale: string;
  readonly collection: string;
  readonly autoregister: boolean;
  readonly reportKeysRateLimit: number;
  readonly translateSweepCron: string;
  readonly autoTranslateDisabled: boolean;

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    const c = config as unknown as Partial<I18nEnv>;
    this.enabled = (c.I18N_STORE ?? 'store') !== 'none';
    this.defaultLocale = c.I18N_DEFAULT_LOCALE ?? 'pl';
    this.fallbackLocale = c.I18N_FALLBACK_LOCALE ?? 'en';
    this.sourceLocale = c.I18N_SOURCE_LOCALE || this.fallbackLocale;
    this.collection = c.I18N_COLLECTION ?? 'translations';
    this.autoregister = c.I18N_AUTOREGISTER ?? true;
    this.reportKeysRateLimit = c.I18N_REPORT_KEYS_RATE_LIMIT ?? 60;
    this.translateSweepCron = c.I18N_TRANSLATE_SWEEP_CRON ?? '30 3 * * *';
    this.autoTranslateDisabled = c.I18N_AUTO_TRANSLATE_DISABLED ?? false;
  }
}
