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
  /** AI_MAX_TOKENS: the floor of a translation call's completion cap. */
  readonly aiMaxTokens: number;
  /** AI_CONCURRENCY: model calls of one translation run in flight at once. */
  readonly aiConcurrency: number;
  /** AI_PROFILE: the env default of the `ai/profile` module setting. */
  readonly aiProfile?: string;
  readonly translateKeysPerRequest: number;
  readonly translateRequestDeadlineMs: number;
  /** CONTENT_TRANSLATE_DOMAIN: prepended to every translation hint. */
  readonly translateDomain?: string;
  /** CONTENT_TRANSLATE_QUIET_MINUTES in ms; 0 disables the content sweep. */
  readonly contentQuietMs: number;
  /** CONTENT_TRANSLATE_BUDGET: (unit, locale) translations per content sweep; 0 means no cap. */
  readonly contentBudget: number;
  /** CONTENT_TRANSLATE_SWEEP_CRON: empty means the schedule is not seeded. */
  readonly contentSweepCron: string;
  /** CONTENT_PAGE_SEARCH: keep the per-locale search indexes of pages. */
  readonly pageSearch: boolean;

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
    this.aiMaxTokens = c.AI_MAX_TOKENS ?? 2048;
    this.aiConcurrency = c.AI_CONCURRENCY ?? 4;
    this.aiProfile = c.AI_PROFILE?.trim() || undefined;
    this.translateKeysPerRequest = c.I18N_TRANSLATE_KEYS_PER_REQUEST ?? 50;
    this.translateRequestDeadlineMs = c.I18N_TRANSLATE_REQUEST_DEADLINE_MS ?? 25_000;
    this.translateDomain = c.CONTENT_TRANSLATE_DOMAIN?.trim() || undefined;
    this.contentQuietMs = Math.round((c.CONTENT_TRANSLATE_QUIET_MINUTES ?? 10) * 60_000);
    this.contentBudget = c.CONTENT_TRANSLATE_BUDGET ?? 200;
    this.contentSweepCron = c.CONTENT_TRANSLATE_SWEEP_CRON ?? '45 3 * * *';
    this.pageSearch = c.CONTENT_PAGE_SEARCH ?? true;
  }
}
