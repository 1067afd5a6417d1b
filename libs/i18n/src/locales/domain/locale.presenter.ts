import type { I18nConfig } from '../../i18n.config';
import { isoOrNull } from '../../shared/stored-time';
import type { LocaleViewDto, PublicLocaleDto } from '../dto/locale.dto';
import { languageTag } from './language-tag';
import type { Locale } from './locale.entity';

/** A locale as the admin routes show it, with its language tag (never empty) and its configured roles. */
export function presentLocale(l: Locale, config: Pick<I18nConfig, 'defaultLocale' | 'fallbackLocale' | 'sourceLocale'>): LocaleViewDto {
  return {
    code: l.code,
    ...(l.language ? { language: l.language } : {}),
    languageTag: languageTag(l),
    ...(l.name ? { name: l.name } : {}),
    active: l.active,
    isDefault: l.code === config.defaultLocale,
    isFallback: l.code === config.fallbackLocale,
    isSource: l.code === config.sourceLocale,
    createdAt: isoOrNull(l.createdAt),
    updatedAt: isoOrNull(l.updatedAt),
  };
}

/** An active locale for frontends and sitemaps; the name falls back to the language's own name. */
export function presentPublicLocale(l: Locale): PublicLocaleDto {
  const tag = languageTag(l);
  return { code: l.code, languageTag: tag, name: l.name || displayName(tag) || l.code };
}

/** The language's name in itself (`pl` gives `polski`), from ICU's data. */
function displayName(tag: string): string | undefined {
  try {
    return new Intl.DisplayNames([tag], { type: 'language' }).of(tag);
  } catch {
    return undefined;
  }
}
