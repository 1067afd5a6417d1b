import { Module } from '@nestjs/common';
import { I18nCoreModule } from '../i18n-core.module';
import { LocalesController, PublicLocalesController } from './http/locales.controller';
import { LocaleRepository } from './persistence/locale.repository';
import { LocaleActivations } from './use-cases/locale-activations';
import { LocaleQueries } from './use-cases/locale.queries';
import { SeedLocalesUseCase } from './use-cases/seed-locales.use-case';
import { CreateLocaleUseCase, DeleteLocaleUseCase, UpdateLocaleUseCase } from './use-cases/write-locale.use-cases';

/** The locale registry: repository, seeding of a fresh install, admin CRUD and the public list. */
@Module({
  imports: [I18nCoreModule],
  controllers: [LocalesController, PublicLocalesController],
  providers: [LocaleRepository, LocaleQueries, LocaleActivations, CreateLocaleUseCase, UpdateLocaleUseCase, DeleteLocaleUseCase, SeedLocalesUseCase],
  exports: [LocaleRepository, LocaleQueries, LocaleActivations],
})
export class LocalesFeatureModule {}
