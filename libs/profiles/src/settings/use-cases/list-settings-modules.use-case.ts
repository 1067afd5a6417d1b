import { Injectable } from '@nestjs/common';
import { SettingsRegistry } from '../domain/settings.registry';

/** One module that declares settings. */
export interface SettingsModuleSummary {
  module: string;
  label?: string;
  /** Keys of its fields, in declaration order. */
  keys: string[];
}

/** `GET /admin/settings`: the modules that declare settings, so an admin UI can offer them. */
@Injectable()
export class ListSettingsModulesUseCase {
  constructor(private readonly registry: SettingsRegistry) {}

  execute(): { modules: SettingsModuleSummary[] } {
    return {
      modules: this.registry.modules().map((m) => ({ module: m.module, ...(m.label !== undefined ? { label: m.label } : {}), keys: m.fields.map((f) => f.key) })),
    };
  }
}
