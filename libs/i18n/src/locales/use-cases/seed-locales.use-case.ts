import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DuplicateKeyError } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';
import { LocaleRepository } from '../persistence/locale.repository';

/**
 * A fresh install (an empty registry) gets the default locale (`pl`) and the fallback and source
 * locale (`en`), both active. Never again afterwards: a registry an admin emptied stays empty until
 * the next fresh install, and a replica that lost the race to seed ignores the duplicate.
 */
@Injectable()
export class SeedLocalesUseCase implements OnApplicationBootstrap {
  private readonly log = new Logger('SeedLocales');

  constructor(
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.enabled) return;
    const seeded = await this.execute();
    if (seeded.length) this.log.log(`seeded locales ${seeded.join(', ')}`);
  }

  /** Seeds an empty registry; resolves the codes it inserted. */
  async execute(): Promise<string[]> {
    if ((await this.locales.count()) > 0) return [];
    const codes = [...new Set([this.config.defaultLocale, this.config.fallbackLocale, this.config.sourceLocale])];
    const now = new Date();
    const inserted: string[] = [];
    for (const code of codes) {
      try {
        await this.locales.insert({ code, active: true }, now);
        inserted.push(code);
      } catch (e) {
        if (!(e instanceof DuplicateKeyError)) throw e;
      }
    }
    return inserted;
  }
}
