import { Injectable } from '@nestjs/common';
import { isPublicSetting, type LocalizedText, type PublicSettingsSnapshot } from '@flowplane/contracts';
import { type EffectiveSetting, SettingValueResolver } from '../domain/setting-value.resolver';
import { SettingsException } from '../domain/settings.exception';
import { SettingsRegistry } from '../domain/settings.registry';
import { SettingsRepository } from '../persistence/settings.repository';

/** Effective (unmasked) values of module settings: stored, else env, else default. Shared by the use cases. */
@Injectable()
export class EffectiveSettings {
  constructor(
    private readonly registry: SettingsRegistry,
    private readonly repository: SettingsRepository,
    private readonly resolver: SettingValueResolver,
  ) {}

  get sourceLocale(): string {
    return this.resolver.sourceLocale;
  }

  /** Every field of `module` in declaration order; 404 when no module declares settings under that name. */
  async module(module: string): Promise<EffectiveSetting[]> {
    const declared = this.registry.module(module);
    if (!declared) throw SettingsException.moduleNotFound(module);
    const stored = await this.repository.valuesOf(module);
    return declared.fields.map((f) => this.resolver.resolve(module, f, stored[f.key]));
  }

  /** One field, or undefined when the module or key is unknown. */
  async field(module: string, key: string): Promise<EffectiveSetting | undefined> {
    const field = this.registry.field(module, key);
    if (!field) return undefined;
    const stored = await this.repository.valuesOf(module);
    return this.resolver.resolve(module, field, stored[key]);
  }

  /** Every public, non-sensitive setting that has a value, for the public-settings reader. */
  async publicSnapshot(): Promise<PublicSettingsSnapshot> {
    const stored = new Map<string, unknown>();
    for (const s of await this.repository.all()) stored.set(`${s.module}/${s.key}`, s.value);
    const settings: PublicSettingsSnapshot['settings'] = {};
    for (const m of this.registry.modules()) {
      for (const f of m.fields) {
        if (!isPublicSetting(f)) continue;
        const e = this.resolver.resolve(m.module, f, stored.get(`${m.module}/${f.key}`));
        if (e.source === 'unset') continue;
        settings[m.module] ??= {};
        settings[m.module][f.key] = f.localized ? { localized: true, value: e.value as LocalizedText } : { localized: false, value: e.value };
      }
    }
    return { sourceLocale: this.resolver.sourceLocale, settings };
  }
}
