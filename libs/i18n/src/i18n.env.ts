import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};

const LOCALE = /^[A-Za-z0-9]+([_-][A-Za-z0-9]+)*$/;

/** The i18n service's settings (localization.md, Configuration), validated at boot. */
export class I18nEnv {
  /** `store` keeps messages in the service's store; `none` disables the module (every handler answers 503 `i18n not configured`). */
  @IsIn(['store', 'none'])
  I18N_STORE = 'store';

  /** Locale of a request when none resolves, last link of every chain (catalog rules 2 and 4). */
  @Matches(LOCALE, { message: 'I18N_DEFAULT_LOCALE must be a locale code such as pl or pt-BR' })
  I18N_DEFAULT_LOCALE = 'pl';

  /** Fills gaps before the default locale (catalog rule 2). */
  @Matches(LOCALE, { message: 'I18N_FALLBACK_LOCALE must be a locale code such as en' })
  I18N_FALLBACK_LOCALE = 'en';

  /** Storage collection of translation rows. */
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'I18N_COLLECTION may hold up to 64 letters, digits, "_" or "-"' })
  I18N_COLLECTION = 'translations';

  /** Enables the public write-once `POST /i18n/report-keys` (set false in production). */
  @Transform(toBool) @IsBoolean()
  I18N_AUTOREGISTER = true;

  /** Language of inline default labels and of reported key texts; empty means the fallback locale. */
  @IsOptional() @Matches(LOCALE, { message: 'I18N_SOURCE_LOCALE must be a locale code such as en' })
  I18N_SOURCE_LOCALE?: string;

  /** Schedule of the translation sweep; empty means do not seed it. */
  @IsString()
  I18N_TRANSLATE_SWEEP_CRON = '30 3 * * *';

  /** Skip publishing the translation flows and seeding the schedule. */
  @Transform(toBool) @IsBoolean()
  I18N_AUTO_TRANSLATE_DISABLED = false;

  /** Report-keys requests per minute per client address; 0 removes the limit. */
  @Type(() => Number) @IsInt() @Min(0) @Max(100_000)
  I18N_REPORT_KEYS_RATE_LIMIT = 60;

  /** Floor of a translation call's completion cap (the cap is sized from the source; this is never a ceiling). */
  @Type(() => Number) @IsInt() @Min(64) @Max(1_000_000)
  AI_MAX_TOKENS = 2048;

  /** Model calls of one translation run in flight at once. */
  @Type(() => Number) @IsInt() @Min(1) @Max(64)
  AI_CONCURRENCY = 4;

  /** An llm-chat profile id for translation and review; overrides the flat `ai/*` settings (module setting `ai/profile`). */
  @IsOptional() @IsString()
  AI_PROFILE?: string;

  /** Keys one `translate-missing` request works through before it answers (re-run until keysProcessed is 0). */
  @Type(() => Number) @IsInt() @Min(1) @Max(10_000)
  I18N_TRANSLATE_KEYS_PER_REQUEST = 50;

  /** Time one `translate-missing` request may spend before it answers with what is left (milliseconds). */
  @Type(() => Number) @IsInt() @Min(1_000) @Max(3_600_000)
  I18N_TRANSLATE_REQUEST_DEADLINE_MS = 25_000;

  /** A content record must sit untouched this many minutes before the sweep translates it (fractions allowed); 0 disables the sweep. */
  @Type(() => Number) @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(525_600)
  CONTENT_TRANSLATE_QUIET_MINUTES = 10;

  /** (unit, locale) model translations per content sweep at most; 0 means no cap. */
  @Type(() => Number) @IsInt() @Min(0) @Max(10_000_000)
  CONTENT_TRANSLATE_BUDGET = 200;

  /** Schedule of the content translation sweep (UTC); empty means do not seed it. */
  @IsString()
  CONTENT_TRANSLATE_SWEEP_CRON = '45 3 * * *';

  /** Keep a search index of pages per active locale (`pages-<code>`) in the search service. */
  @Transform(toBool) @IsBoolean()
  CONTENT_PAGE_SEARCH = true;

  /** One phrase describing the deployment, prepended to every translation hint (for example "a Polish bike-rental shop"). */
  @IsOptional() @IsString()
  CONTENT_TRANSLATE_DOMAIN?: string;
}
