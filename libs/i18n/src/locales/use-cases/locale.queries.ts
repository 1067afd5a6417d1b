import { Inject, Injectable } from '@nestjs/common';
import { I18nConfig } from '../../i18n.config';
import { I18nException } from '../../i18n.exception';
import { presentLocale, presentPublicLocale } from '../domain/locale.presenter';
import type { LocaleViewDto, PublicLocaleDto } from '../dto/locale.dto';
import { LocaleRepository } from '../persistence/locale.repository';

/** Reads of the locale registry: `GET /admin/i18n/locales[/{code}]` and the public `GET /i18n/locales`. */
@Injectable()
export class LocaleQueries {
  constructor(
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  async list(): Promise<LocaleViewDto[]> {
    return (await this.locales.list()).map((l) => presentLocale(l, this.config));
  }

  async get(code: string): Promise<LocaleViewDto> {
    const l = await this.locales.find(code);
    if (!l) throw I18nException.localeNotFound(code);
    return presentLocale(l, this.config);
  }

  /** The active locales (rule 11: frontends validate the language prefix against this list). */
  async listPublic(): Promise<PublicLocaleDto[]> {
    return (await this.locales.list({ active: true })).map(presentPublicLocale);
  }
}
