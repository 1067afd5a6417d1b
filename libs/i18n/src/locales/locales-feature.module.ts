import { Module } from '@nestjs/common';
import { I18nCoreModule } from '../i18n-core.module';
import { LocaleRepository } from './persistence/locale.repository';

/** The locale registry: repository, seeding of a fresh install, admin CRUD and the public list. */
@Module({
  imports: [I18nCoreModule],
  providers: [LocaleRepository],
  exports: [LocaleRepository],
})
export class LocalesFeatureModule {}
