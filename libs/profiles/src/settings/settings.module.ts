import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { DECLARED_MODULE_SETTINGS, type ModuleSettings } from '@flowplane/contracts';
import { outboxProvider, SERVICE_CONTEXT, type ServiceContext } from '@flowplane/platform/service';
import { secretsKeyringProvider } from '../persistence/secrets-at-rest';
import { SettingValueResolver } from './domain/setting-value.resolver';
import { SettingsRegistry } from './domain/settings.registry';
import { AdminSettingsController } from './http/admin-settings.controller';
import { InternalSettingsController } from './http/internal-settings.controller';
import { PublicSettingsController } from './http/public-settings.controller';
import { SettingsRepository } from './persistence/settings.repository';
import { SettingsReader } from './settings-reader';
import { SETTINGS_DECLARATIONS, SETTINGS_OUTBOX } from './settings.tokens';
import { EffectiveSettings } from './use-cases/effective-settings.service';
import { ListSettingsModulesUseCase } from './use-cases/list-settings-modules.use-case';
import { ReadModuleSettingsUseCase } from './use-cases/read-module-settings.use-case';
import { ReadPublicSettingUseCase } from './use-cases/read-public-setting.use-case';
import { StoreSettingsReader } from './use-cases/store-settings.reader';
import { UpdateModuleSettingsUseCase } from './use-cases/update-module-settings.use-case';

function providers(declarations: Provider): Provider[] {
  return [
    declarations,
    // Built here so that inconsistent declarations (a field both sensitive and localized) stop the boot.
    { provide: SettingsRegistry, inject: [SETTINGS_DECLARATIONS], useFactory: (d: readonly ModuleSettings[]) => new SettingsRegistry(d) },
    { provide: SettingValueResolver, inject: [SERVICE_CONTEXT], useFactory: (ctx: ServiceContext) => new SettingValueResolver(ctx.env) },
    // Its own collection, so the relay of this feature never waits behind another feature's lease.
    outboxProvider(SETTINGS_OUTBOX, { collection: 'settings_outbox', source: '/profiles' }),
    secretsKeyringProvider,
    SettingsRepository,
    EffectiveSettings,
    ListSettingsModulesUseCase,
    ReadModuleSettingsUseCase,
    ReadPublicSettingUseCase,
    UpdateModuleSettingsUseCase,
    { provide: SettingsReader, useClass: StoreSettingsReader },
  ];
}

const controllers = [PublicSettingsController, AdminSettingsController, InternalSettingsController];

/**
 * Module settings (issue 3, items 8 and 9): declarations from contracts, values in the `settings`
 * collection, public and admin routes, `settings.updated` through an outbox. Exports `SettingsReader`.
 */
@Module({
  controllers,
  providers: providers({ provide: SETTINGS_DECLARATIONS, useValue: DECLARED_MODULE_SETTINGS }),
  exports: [SettingsReader],
})
export class SettingsModule {
  /** The same feature over other declarations (tests, and a deployment that adds its own modules). */
  static withDeclarations(declarations: readonly ModuleSettings[]): DynamicModule {
    return {
      module: SettingsModule,
      controllers,
      providers: providers({ provide: SETTINGS_DECLARATIONS, useValue: declarations }),
      exports: [SettingsReader],
    };
  }
}
