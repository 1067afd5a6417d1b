import { Inject, Injectable } from '@nestjs/common';
import { I18nConfig } from '../../i18n.config';
import { SettingsExpander } from '../../tokens/settings-expander.service';
import { buildSitemap } from '../domain/sitemap';
import { ContentRepository } from '../persistence/content.repository';
import { ActiveLocales } from './active-locales';

const BASE_URL = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;

/**
 * `GET /sitemap.xml`: every page under each active locale it has content in, read at request time (rule 11). Page
 * URLs start at the public setting `site/base_url` (env SITE_BASE_URL), else at the origin the
 * request reached.
 */
@Injectable()
export class SitemapUseCase {
  constructor(
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(ActiveLocales) private readonly locales: ActiveLocales,
    @Inject(SettingsExpander) private readonly expander: SettingsExpander,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  async execute(requestOrigin: string | undefined): Promise<string> {
    const [pages, locales, lookup] = await Promise.all([this.repository.sitemapPages(), this.locales.tagged(), this.expander.lookup(this.config.sourceLocale)]);
    const setting = lookup('site', 'base_url')?.trim();
    const base = setting && BASE_URL.test(setting) ? setting : (requestOrigin ?? 'http://localhost');
    // x-default: readers of an unlisted language are served the fallback locale's text.
    return buildSitemap(base, pages, locales, this.config.fallbackLocale);
  }
}
