import { DEFAULT_SOURCE_LOCALE, type FieldType, isLocalizedText, type LocalizedText, type SettingField } from '@flowplane/contracts';

/** Where an effective value came from. */
export type SettingSource = 'stored' | 'env' | 'default' | 'unset';

/** One field with its effective value. */
export interface EffectiveSetting {
  module: string;
  field: SettingField;
  /**
   * Plain fields: the value, undefined when unset. Localized fields: the locale map readers see
   * (stored per-locale overrides over the env or default text of the source locale); empty when unset.
   */
  value: unknown;
  source: SettingSource;
  /** Localized fields only: where each locale's text came from. */
  localeSources?: Record<string, Exclude<SettingSource, 'unset'>>;
}

/** The environment settings are read from (the service's env, `SERVICE_CONTEXT.env`). */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** The locale plain localized values are written in: I18N_SOURCE_LOCALE, else I18N_FALLBACK_LOCALE, else `en`. */
export function sourceLocaleFrom(env: SettingsEnv): string {
  return env.I18N_SOURCE_LOCALE || env.I18N_FALLBACK_LOCALE || DEFAULT_SOURCE_LOCALE;
}

/**
 * Value resolution of module settings (issue 3, item 8): the stored value, else the env var, else the
 * declared default. A stored empty string counts as unset. Localized fields resolve per locale: a
 * stored locale map (or a plain string, taken as source-locale text, so switching a field to localized
 * needs no migration) over the env or default text, so clearing one locale falls back to the default.
 */
export class SettingValueResolver {
  readonly sourceLocale: string;

  constructor(private readonly env: SettingsEnv) {
    this.sourceLocale = sourceLocaleFrom(env);
  }

  /** The effective value of `field` given what is stored for it (undefined when nothing is). */
  resolve(module: string, field: SettingField, stored: unknown): EffectiveSetting {
    return field.localized ? this.resolveLocalized(module, field, stored) : this.resolvePlain(module, field, stored);
  }

  /** The env var's value, coerced to the field's type when it parses; undefined when unset or empty. */
  envValue(field: SettingField): unknown {
    const raw = field.env_var ? this.env[field.env_var] : undefined;
    if (raw === undefined || raw === '') return undefined;
    return coerceEnv(field.type, raw);
  }

  /** A stored value as a locale map (a legacy plain string is source-locale text). */
  storedLocaleMap(stored: unknown): LocalizedText {
    if (typeof stored === 'string') return stored === '' ? {} : { [this.sourceLocale]: stored };
    if (isLocalizedText(stored)) return Object.fromEntries(Object.entries(stored).filter(([, v]) => v !== ''));
    return {};
  }

  private resolvePlain(module: string, field: SettingField, stored: unknown): EffectiveSetting {
    if (isSet(stored)) return { module, field, value: stored, source: 'stored' };
    const env = this.envValue(field);
    if (env !== undefined) return { module, field, value: env, source: 'env' };
    if (isSet(field.default)) return { module, field, value: field.default, source: 'default' };
    return { module, field, value: undefined, source: 'unset' };
  }

  private resolveLocalized(module: string, field: SettingField, stored: unknown): EffectiveSetting {
    const value: LocalizedText = {};
    const localeSources: Record<string, Exclude<SettingSource, 'unset'>> = {};
    const env = this.envValue(field);
    const base: { text: LocalizedText; source: 'env' | 'default' } | undefined =
      typeof env === 'string'
        ? { text: { [this.sourceLocale]: env }, source: 'env' }
        : typeof field.default === 'string' && field.default !== ''
          ? { text: { [this.sourceLocale]: field.default }, source: 'default' }
          : isLocalizedText(field.default)
            ? { text: field.default, source: 'default' }
            : undefined;
    for (const [locale, text] of Object.entries(base?.text ?? {})) {
      if (text === '') continue;
      value[locale] = text;
      localeSources[locale] = base!.source;
    }
    const overrides = this.storedLocaleMap(stored);
    for (const [locale, text] of Object.entries(overrides)) {
      value[locale] = text;
      localeSources[locale] = 'stored';
    }
    const source: SettingSource = Object.keys(overrides).length ? 'stored' : Object.keys(value).length ? base!.source : 'unset';
    return { module, field, value, source, localeSources };
  }
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function coerceEnv(type: FieldType, raw: string): unknown {
  switch (type) {
    case 'number': {
      const n = Number(raw.trim());
      return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
    }
    case 'boolean':
      if (/^(true|1|yes|on)$/i.test(raw.trim())) return true;
      if (/^(false|0|no|off)$/i.test(raw.trim())) return false;
      return raw;
    case 'json':
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        return raw;
      }
    default:
      return raw;
  }
}
