import { Module } from '@nestjs/common';
import { ProfilesFeatureModule } from './profiles/profiles-feature.module';
import { SettingsModule } from './settings/settings.module';

/** The profiles service: profile kinds and profiles, and module settings. */
@Module({ imports: [SettingsModule, ProfilesFeatureModule] })
export class ProfilesModule {}
