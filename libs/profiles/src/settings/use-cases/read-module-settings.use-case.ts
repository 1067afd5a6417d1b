import { Injectable } from '@nestjs/common';
import { SettingsException } from '../domain/settings.exception';
import { type AdminModuleSettingsView, presentModuleSettings } from '../domain/settings.presenter';
import { SettingsRegistry } from '../domain/settings.registry';
import { EffectiveSettings } from './effective-settings.service';

/** `GET /admin/settings/{module}`: every field with its declaration and effective value, sensitive ones masked. */
@Injectable()
export class ReadModuleSettingsUseCase {
  constructor(
    private readonly registry: SettingsRegistry,
    private readonly settings: EffectiveSettings,
  ) {}

  async execute(module: string): Promise<AdminModuleSettingsView> {
    const declared = this.registry.module(module);
    if (!declared) throw SettingsException.moduleNotFound(module);
    return presentModuleSettings(declared, await this.settings.module(module), this.settings.sourceLocale);
  }
}
