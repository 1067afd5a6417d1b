import { Injectable } from '@nestjs/common';
import { type LocalizedText, resolveLocalizedText } from '@flowplane/contracts';
import { SettingsReader } from '../settings-reader';
import { EffectiveSettings } from './effective-settings.service';

/** `SettingsReader` over the settings store, for the profiles feature (`setting_ref` fields). */
@Injectable()
export class StoreSettingsReader extends SettingsReader {
  constructor(private readonly settings: EffectiveSettings) {
    super();
  }

  async effective(module: string, key: string, locale?: string): ReturnType<SettingsReader['effective']> {
    const e = await this.settings.field(module, key);
    if (!e || e.source === 'unset') return { value: undefined, source: 'unset' };
    if (!e.field.localized) return { value: e.value, source: e.source };
    const chosen = resolveLocalizedText(e.value as LocalizedText, locale, this.settings.sourceLocale);
    if (!chosen) return { value: undefined, source: 'unset' };
    return { value: chosen.value, source: e.localeSources?.[chosen.locale] ?? e.source };
  }
}
