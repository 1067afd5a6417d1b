import { Module } from '@nestjs/common';
import { CoverageController } from '../coverage/coverage.controller';
import { CoverageUseCase } from '../coverage/coverage.use-case';
import { LocalesFeatureModule } from '../locales/locales-feature.module';
import { TranslationsFeatureModule } from '../translations/translations-feature.module';
import { TransferController } from './transfer.controller';
import { ExportTranslationsUseCase, ImportTranslationsUseCase } from './transfer.use-cases';

/** Translators' file formats (export, import) and coverage reports. */
@Module({
  imports: [TranslationsFeatureModule, LocalesFeatureModule],
  controllers: [TransferController, CoverageController],
  providers: [ExportTranslationsUseCase, ImportTranslationsUseCase, CoverageUseCase],
})
export class TransferFeatureModule {}
