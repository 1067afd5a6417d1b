import { Inject, Injectable } from '@nestjs/common';
import { LocaleRepository } from '../../locales/persistence/locale.repository';
import { LocaleQueries } from '../../locales/use-cases/locale.queries';
import type { PublicLocaleDto } from '../../locales/dto/locale.dto';

/** The active locales of the registry, read at every call (rule 11: nothing about locales is baked in). */
@Injectable()
export class ActiveLocales {
  constructor(
    @Inject(LocaleRepository) private readonly repository: LocaleRepository,
    @Inject(LocaleQueries) private readonly queries: LocaleQueries,
  ) {}

  async codes(): Promise<string[]> {
    return (await this.repository.list({ active: true })).map((l) => l.code);
  }

  /** Code and language tag of each active locale (the sitemap's hreflang). */
  tagged(): Promise<PublicLocaleDto[]> {
    return this.queries.listPublic();
  }
}
