import { Module } from '@nestjs/common';

/** Profile kinds and profiles (issue 3, items 1 to 7). */
@Module({})
export class ProfilesFeatureModule {}
