import { Injectable } from '@nestjs/common';
import { isPublicSetting, type LocalizedText, resolveLocalizedText } from '@flowplane/contracts';
import { SettingsException } from '../domain/settings.exception';
import { EffectiveSettings } from './effective-settings.service';

/** The public read of one setting. */
export interface PublicSettingView {
  module: string;
  key: string;
  /** One value; for a localized field the text chosen for the requested locale. Null when unset. */
  value: unknown;
  /** Localized fields: the locale the text was found under. */
  locale?: string;
}

/**
 * `GET /settings/{module}/{key}`: only public, non-sensitive fields; anything else (private,
 * sensitive, unknown) is the same 404 so the route never reveals that a private field exists.
 * Localized fields pick the text by the chain requested locale, its base, source locale, any non-empty.
 */
@Injectable()
export class ReadPublicSettingUseCase {
  constructor(private readonly settings: EffectiveSettings) {}

  async execute(module: string, key: string, locale?: string): Promise<PublicSettingView> {
    const effective = await this.settings.field(module, key);
    if (!effective || !isPublicSetting(effective.field)) throw SettingsException.publicSettingNotFound(module, key);
    if (!effective.field.localized) return { module, key, value: effective.value ?? null };
    const chosen = resolveLocalizedText(effective.value as LocalizedText, locale, this.settings.sourceLocale);
    return chosen ? { module, key, value: chosen.value, locale: chosen.locale } : { module, key, value: null };
  }
}
