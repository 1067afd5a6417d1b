import { Inject, Injectable } from '@nestjs/common';
import { I18nConfig } from '../../i18n.config';
import { ContentException } from '../content.exception';
import { type Page, pageLocales, pageUnits, SLUG_MAX, SLUG_PATTERN } from '../domain/content.entity';
import { presentPage } from '../domain/content.presenter';
import { EMPTY_STATE, reconcileUnits, sourceHashOf, type TranslationState } from '../domain/translation-state';
import type { DeletedContentDto, PageViewDto, PutPageDto } from '../dto/content.dto';
import { ContentOutbox } from '../persistence/content.outbox';
import { ContentRepository } from '../persistence/content.repository';
import { ActiveLocales } from './active-locales';
import { PublicPageCache } from './public-page.cache';

/** 400 naming `slug` unless it is one (lowercase words of letters and digits joined by `-`). */
export function checkSlug(slug: string): void {
  if (slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug)) {
    throw ContentException.invalid([{ field: 'slug', problems: [`slug must be lowercase letters and digits in words joined by "-" (about-us), at most ${SLUG_MAX} characters`] }]);
  }
}

/** What a page write stores, from the stored page (or none) and the request. */
export function nextPage(slug: string, existing: Page | null, dto: Omit<PutPageDto, 'seo'> & { seo?: Page['seo'] }, sourceLocale: string, now: Date): { page: Page; sourceChanged: boolean } {
  const seo: Page['seo'] = {};
  if (dto.seo?.title) seo.title = { ...dto.seo.title };
  if (dto.seo?.description) seo.description = { ...dto.seo.description };
  const draft = { title: { ...dto.title }, body: { ...dto.body }, seo };
  const before = existing ? pageUnits(existing, sourceLocale) : undefined;
  const after = pageUnits(draft, sourceLocale);
  const prior: TranslationState = existing?.translation ?? { ...EMPTY_STATE, units: [] };
  const targets = [...new Set([...(existing ? pageLocales(existing) : []), ...pageLocales(draft)])].filter((l) => l !== sourceLocale);
  const translation: TranslationState = {
    ...prior,
    translationReady: dto.translationReady ?? prior.translationReady,
    reviewRequired: dto.reviewRequired ?? prior.reviewRequired,
    retranslate: dto.retranslate === true || prior.retranslate,
    units: reconcileUnits(prior, after.units, { before: before?.texts ?? (() => undefined), after: after.texts }, targets),
  };
  const sourceChanged = !before || sourceHashOf(before.units) !== sourceHashOf(after.units);
  return { page: { slug, ...draft, translation, createdAt: existing?.createdAt ?? now, updatedAt: now }, sourceChanged };
}

/** `PUT /admin/content/pages/{slug}`: creates or replaces the page's text; an admin write ends the seeder's claim on it. */
@Injectable()
export class PutPageUseCase {
  constructor(
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(ContentOutbox) private readonly outbox: ContentOutbox,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(ActiveLocales) private readonly locales: ActiveLocales,
    @Inject(PublicPageCache) private readonly cache: PublicPageCache,
  ) {}

  async execute(slug: string, dto: PutPageDto): Promise<{ view: PageViewDto; created: boolean }> {
    checkSlug(slug);
    const { page, created } = await this.outbox.transaction(async (session) => {
      const existing = await this.repository.findPage(slug, session);
      const next = nextPage(slug, existing, dto, this.config.sourceLocale, new Date());
      await this.repository.savePage(next.page, session);
      await this.outbox.pageChanged(session, slug, existing ? 'updated' : 'created', next.sourceChanged);
      return { page: next.page, created: !existing };
    });
    this.cache.drop(slug);
    return { view: presentPage(page, await this.locales.codes(), this.config.sourceLocale), created };
  }
}

/** `DELETE /admin/content/pages/{slug}`. */
@Injectable()
export class DeletePageUseCase {
  constructor(
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(ContentOutbox) private readonly outbox: ContentOutbox,
    @Inject(PublicPageCache) private readonly cache: PublicPageCache,
  ) {}

  async execute(slug: string): Promise<DeletedContentDto> {
    const deleted = await this.outbox.transaction(async (session) => {
      if (!(await this.repository.deletePage(slug, session))) return false;
      await this.outbox.pageChanged(session, slug, 'deleted', true);
      return true;
    });
    this.cache.drop(slug);
    if (!deleted) throw ContentException.pageNotFound(slug);
    return { deleted: true };
  }
}
