import { Module } from '@nestjs/common';
import { secretsKeyringProvider } from '../persistence/secrets-at-rest';
import { SettingsModule } from '../settings/settings.module';
import { InternalProfilesController } from './http/internal-profiles.controller';
import { ProfilesController } from './http/profiles.controller';
import { KindRegistry } from './kinds/kind.registry';
import { LiveOptionsClient } from './kinds/live-options.client';
import { ProfileRepository } from './persistence/profile.repository';
import { ProfilesOutbox } from './persistence/profiles.outbox';
import { DeleteProfileUseCase } from './use-cases/delete-profile.use-case';
import { DuplicateProfileUseCase } from './use-cases/duplicate-profile.use-case';
import { ListKindsUseCase } from './use-cases/list-kinds.use-case';
import { ProfileQueries } from './use-cases/profile.queries';
import { ResolveProfileUseCase } from './use-cases/resolve-profile.use-case';
import { UpdateProfileUseCase } from './use-cases/update-profile.use-case';
import { UpsertProfileUseCase } from './use-cases/upsert-profile.use-case';

/**
 * Profile kinds and profiles (issue 3, items 1 to 7): the kind registry (built at boot; a broken
 * declaration refuses the boot), the profiles repository and outbox, and the admin and internal
 * routes. Imports the settings feature for `SettingsReader` (provenance of `setting_ref` fields).
 */
@Module({
  imports: [SettingsModule],
  controllers: [ProfilesController, InternalProfilesController],
  providers: [
    { provide: KindRegistry, useFactory: () => new KindRegistry() },
    secretsKeyringProvider,
    LiveOptionsClient,
    ProfileRepository,
    ProfilesOutbox,
    ProfileQueries,
    ListKindsUseCase,
    UpsertProfileUseCase,
    UpdateProfileUseCase,
    DeleteProfileUseCase,
    DuplicateProfileUseCase,
    ResolveProfileUseCase,
  ],
  exports: [KindRegistry],
})
export class ProfilesFeatureModule {}
