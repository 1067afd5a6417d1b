import { Inject, Injectable } from '@nestjs/common';
import { DuplicateKeyError } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';
import { I18nException } from '../../i18n.exception';
import { canonicalLanguageTag } from '../domain/language-tag';
import { presentLocale } from '../domain/locale.presenter';
import type { CreateLocaleDto, DeletedLocaleDto, LocaleViewDto, UpdateLocaleDto } from '../dto/locale.dto';
import { LocaleRepository } from '../persistence/locale.repository';
import { LocaleActivations } from './locale-activations';

/** `language` in canonical BCP 47 form; 400 naming the field when it is not a tag. */
function validLanguage(language: string | null | undefined): string | undefined {
  if (!language) return undefined;
  const canonical = canonicalLanguageTag(language);
  if (!canonical) throw I18nException.invalid([{ field: 'language', problems: [`language "${language.slice(0, 100)}" is not a BCP 47 language tag`] }]);
  return canonical;
}

/** `POST /admin/i18n/locales`: registers a locale (201); 409 when the code exists. */
@Injectable()
export class CreateLocaleUseCase {
  constructor(
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(LocaleActivations) private readonly activations: LocaleActivations,
  ) {}

  async execute(dto: CreateLocaleDto): Promise<LocaleViewDto> {
    const language = validLanguage(dto.language);
    try {
      const created = await this.locales.insert(
        { code: dto.code, active: dto.active ?? true, ...(language ? { language } : {}), ...(dto.name ? { name: dto.name } : {}) },
        new Date(),
      );
      if (created.active) this.activations.activated(created.code);
      return presentLocale(created, this.config);
    } catch (e) {
      if (e instanceof DuplicateKeyError) throw I18nException.localeExists(dto.code);
      throw e;
    }
  }
}

/** `PUT /admin/i18n/locales/{code}`: changes the fields the body names. */
@Injectable()
export class UpdateLocaleUseCase {
  constructor(
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(LocaleActivations) private readonly activations: LocaleActivations,
  ) {}

  async execute(code: string, dto: UpdateLocaleDto): Promise<LocaleViewDto> {
    const existing = await this.locales.find(code);
    if (!existing) throw I18nException.localeNotFound(code);
    const language = dto.language === undefined ? existing.language : validLanguage(dto.language);
    const name = dto.name === undefined ? existing.name : dto.name;
    const updated = await this.locales.replace(
      existing,
      { code, active: dto.active ?? existing.active, ...(language ? { language } : {}), ...(name ? { name } : {}) },
      new Date(),
    );
    if (!updated) throw I18nException.localeNotFound(code);
    if (updated.active && !existing.active) this.activations.activated(code);
    return presentLocale(updated, this.config);
  }
}

/** `DELETE /admin/i18n/locales/{code}`: removes the locale from the registry; its messages stay. */
@Injectable()
export class DeleteLocaleUseCase {
  constructor(@Inject(LocaleRepository) private readonly locales: LocaleRepository) {}

  async execute(code: string): Promise<DeletedLocaleDto> {
    if (!(await this.locales.delete(code))) throw I18nException.localeNotFound(code);
    return { deleted: true, code };
  }
}
