import { Inject, Injectable } from '@nestjs/common';
import { I18nConfig } from '../../i18n.config';
import { decodeCursor, encodeCursor } from '../../translations/domain/cursor';
import { ContentException } from '../content.exception';
import { presentFragment, presentPage } from '../domain/content.presenter';
import type { ContentPageQueryDto, FragmentPageDto, FragmentViewDto, PagePageDto, PageViewDto } from '../dto/content.dto';
import { ContentRepository } from '../persistence/content.repository';
import { ActiveLocales } from './active-locales';

const DEFAULT_LIMIT = 100;

/** Admin reads of pages and fragments: the stored form with the translation state of every active locale. */
@Injectable()
export class ContentQueries {
  constructor(
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(ActiveLocales) private readonly locales: ActiveLocales,
  ) {}

  async pages(q: ContentPageQueryDto): Promise<PagePageDto> {
    const limit = q.limit ?? DEFAULT_LIMIT;
    const after = q.cursor ? decodeCursor(q.cursor, 1)[0] : undefined;
    const [pages, active] = await Promise.all([this.repository.listPages(limit + 1, after), this.locales.codes()]);
    const page = pages.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map((p) => presentPage(p, active, this.config.sourceLocale)), nextCursor: pages.length > limit && last ? encodeCursor([last.slug]) : null };
  }

  async page(slug: string): Promise<PageViewDto> {
    const [p, active] = await Promise.all([this.repository.findPage(slug), this.locales.codes()]);
    if (!p) throw ContentException.pageNotFound(slug);
    return presentPage(p, active, this.config.sourceLocale);
  }

  async fragments(q: ContentPageQueryDto): Promise<FragmentPageDto> {
    const limit = q.limit ?? DEFAULT_LIMIT;
    const after = q.cursor ? decodeCursor(q.cursor, 1)[0] : undefined;
    const [items, active] = await Promise.all([this.repository.listFragments(limit + 1, after), this.locales.codes()]);
    const page = items.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map((f) => presentFragment(f, active, this.config.sourceLocale)), nextCursor: items.length > limit && last ? encodeCursor([last.key]) : null };
  }

  async fragment(key: string): Promise<FragmentViewDto> {
    const [f, active] = await Promise.all([this.repository.findFragment(key), this.locales.codes()]);
    if (!f) throw ContentException.fragmentNotFound(key);
    return presentFragment(f, active, this.config.sourceLocale);
  }
}
