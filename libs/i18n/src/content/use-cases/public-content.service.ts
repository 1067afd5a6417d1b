import { Inject, Injectable } from '@nestjs/common';
import { currentLocale } from '@flowplane/platform/http';
import { I18nConfig } from '../../i18n.config';
import { isoOrNull } from '../../shared/stored-time';
import { SettingsExpander } from '../../tokens/settings-expander.service';
import { expandSettingsTokens, NO_SETTINGS, type SettingLookup } from '../../tokens/settings-tokens';
import type { Page } from '../domain/content.entity';
import { ContentException } from '../content.exception';
import { projectFragment } from '../domain/fragment';
import { contentChain, type LocaleMap, pickText } from '../domain/localized-text';
import type { PublicFragmentDto, PublicPageDto } from '../dto/content.dto';
import { ContentRepository } from '../persistence/content.repository';
import { PublicPageCache, type RenderedPage } from './public-page.cache';

/**
 * The public reads: a page or a fragment in the request's locale (query `lang`, `lang` cookie,
 * Accept-Language, the default locale), each text picked by the chain requested, base, fallback, then
 * any non-empty value, and settings tokens expanded after that choice (locale first, tokens second):
 * title, SEO and fragment leaves as plain text, the body as HTML (values escaped, markup untouched).
 */
@Injectable()
export class PublicContentService {
  constructor(
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(SettingsExpander) private readonly expander: SettingsExpander,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(PublicPageCache) private readonly cache: PublicPageCache,
  ) {
    expander.onSettingsChanged(() => cache.clear());
  }

  /** The page and the locale its body was picked from (`Content-Language`), rendered once per (slug, locale) until the page or a setting changes. */
  async page(slug: string): Promise<RenderedPage> {
    const locale = this.locale();
    const hit = this.cache.get(slug, locale);
    if (hit) return hit;
    const generation = this.cache.mark();
    const [p, lookup] = await Promise.all([this.repository.findPage(slug), this.expander.lookup(locale)]);
    if (!p) throw ContentException.pageNotFound(slug);
    const rendered = this.renderWith(p, locale, lookup);
    // Tokens left verbatim because settings could not be read are not kept.
    if (lookup !== NO_SETTINGS) {
      rendered.shareable = true;
      this.cache.set(slug, locale, rendered, generation);
    }
    return rendered;
  }

  /** Renders `p` for `locale` as the public read would, without the cache (the admin preview). */
  async render(p: Page, locale: string): Promise<RenderedPage> {
    return this.renderWith(p, locale, await this.expander.lookup(locale));
  }

  private renderWith(p: Page, locale: string, lookup: SettingLookup): RenderedPage {
    const chain = contentChain(locale, this.config.fallbackLocale);
    const plain = (m: LocaleMap | undefined) => expandSettingsTokens(pickText(m, chain)?.text ?? '', lookup, 'plain');
    const body = pickText(p.body, chain);
    const seo: PublicPageDto['seo'] = {};
    if (p.seo.title && pickText(p.seo.title, chain)) seo.title = plain(p.seo.title);
    if (p.seo.description && pickText(p.seo.description, chain)) seo.description = plain(p.seo.description);
    return {
      page: { slug: p.slug, locale, title: plain(p.title), body: expandSettingsTokens(body?.text ?? '', lookup, 'html'), seo, updatedAt: isoOrNull(p.updatedAt) },
      contentLocale: body?.locale ?? locale,
    };
  }

  async fragment(key: string): Promise<PublicFragmentDto> {
    const locale = this.locale();
    const [stored, lookup] = await Promise.all([this.repository.fragmentJson(key), this.expander.lookup(locale)]);
    if (!stored) throw ContentException.fragmentNotFound(key);
    return { key, locale, data: projectFragment(JSON.parse(stored.json), contentChain(locale, this.config.fallbackLocale), lookup) };
  }

  private locale(): string {
    return currentLocale() || this.config.defaultLocale;
  }
}
