import { Inject, Injectable, Logger } from '@nestjs/common';
import { type SettingsUpdatedPayload, Topics } from '@flowplane/contracts';
import type { Outbox } from '@flowplane/platform/bus';
import { SettingValueResolver } from '../domain/setting-value.resolver';
import { SettingsUpdateValidator } from '../domain/settings-update.validator';
import { SettingsException } from '../domain/settings.exception';
import { type AdminModuleSettingsView, presentModuleSettings } from '../domain/settings.presenter';
import { SettingsRegistry } from '../domain/settings.registry';
import { SettingsRepository } from '../persistence/settings.repository';
import { SETTINGS_OUTBOX } from '../settings.tokens';
import { EffectiveSettings } from './effective-settings.service';

/**
 * `PUT /admin/settings/{module}`: validates the values against the declarations (every failing field
 * in one 400), stores the changes and announces `settings.updated` {module, keys} through the outbox
 * in the same transaction. The event names the keys, never a value. A write that changes nothing
 * stores nothing and announces nothing.
 */
@Injectable()
export class UpdateModuleSettingsUseCase {
  private readonly log = new Logger('Settings');
  private readonly validator: SettingsUpdateValidator;

  constructor(
    private readonly registry: SettingsRegistry,
    private readonly repository: SettingsRepository,
    private readonly settings: EffectiveSettings,
    resolver: SettingValueResolver,
    @Inject(SETTINGS_OUTBOX) private readonly outbox: Outbox,
  ) {
    this.validator = new SettingsUpdateValidator(resolver);
  }

  async execute(module: string, values: Readonly<Record<string, unknown>>, actor?: string): Promise<AdminModuleSettingsView> {
    const declared = this.registry.module(module);
    if (!declared) throw SettingsException.moduleNotFound(module);
    const keys = await this.outbox.withTransaction(async (session) => {
      // Read inside the transaction: per-locale merges build on what is stored now, and a concurrent
      // write to the same key makes the transaction run again rather than lose an update.
      const plan = this.validator.plan(declared, values, await this.repository.valuesOf(module, session));
      if (plan.problems.length) throw SettingsException.invalid(module, plan.problems);
      for (const [key, value] of plan.writes) {
        if (value === undefined) await this.repository.remove(module, key, session);
        else await this.repository.save(module, key, value, session);
      }
      const changed = declared.fields.map((f) => f.key).filter((k) => plan.writes.has(k));
      if (changed.length) {
        const payload: SettingsUpdatedPayload = { module, keys: changed };
        await this.outbox.enqueue(session, Topics.SettingsUpdated, payload, { key: module, entitytype: 'settings', action: 'updated' });
      }
      return changed;
    });
    if (keys.length) this.log.log(`settings of ${module} updated: ${keys.join(', ')}${actor ? ` by ${actor}` : ''}`);
    return presentModuleSettings(declared, await this.settings.module(module), this.settings.sourceLocale);
  }
}
