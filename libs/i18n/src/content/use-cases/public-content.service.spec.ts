import { runWithLocale } from '@flowplane/platform/http';
import type { I18nConfig } from '../../i18n.config';
import type { SettingsExpander } from '../../tokens/settings-expander.service';
import { NO_SETTINGS, type SettingLookup } from '../../tokens/settings-tokens';
import type { Page } from '../domain/content.entity';
import { EMPTY_STATE } from '../domain/translation-state';
import type { ContentRepository } from '../persistence/content.repository';
import { PublicContentService } from './public-content.service';
import { PublicPageCache } from './public-page.cache';

const page: Page = {
  slug: 'about',
  title: { en: 'About [[ site.name ]]', pl: 'O [[ site.name ]]' },
  body: { en: '<p title="[[ site.name ]]">Hi from <b>[[ site.name ]]</b> [[ site.unknown ]]</p>' },
  seo: { title: { pl: 'SEO [[ site.name ]]' } },
  translation: { ...EMPTY_STATE, pending: [] },
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-02T00:00:00Z'),
};

function service(lookup: SettingLookup = (m, k) => (m === 'site' && k === 'name' ? 'Tom & "Jerry" <Co>' : undefined)) {
  let reads = 0;
  const repository = { findPage: async (slug: string) => (reads++, slug === page.slug ? page : null) } as unknown as ContentRepository;
  const expander = { lookup: async () => lookup, onSettingsChanged: () => undefined } as unknown as SettingsExpander;
  const config = { fallbackLocale: 'en', defaultLocale: 'pl' } as I18nConfig;
  const cache = new PublicPageCache();
  return { svc: new PublicContentService(repository, expander, config, cache), reads: () => reads };
}

describe('PublicContentService.page: locale first, tokens second', () => {
  it('expands the title and SEO as plain text and the body as HTML (values escaped, markup and unknown tokens untouched)', async () => {
    const { svc } = service();
    const en = await runWithLocale('en', () => svc.page('about'));
    expect(en.page).toMatchObject({ locale: 'en', title: 'About Tom & "Jerry" <Co>', seo: { title: 'SEO Tom & "Jerry" <Co>' } });
    expect(en.page.body).toBe('<p title="Tom &amp; &quot;Jerry&quot; &lt;Co&gt;">Hi from <b>Tom &amp; &quot;Jerry&quot; &lt;Co&gt;</b> [[ site.unknown ]]</p>');
    const pl = await runWithLocale('pl-PL', () => svc.page('about'));
    expect(pl).toMatchObject({ contentLocale: 'en', page: { locale: 'pl-PL', title: 'O Tom & "Jerry" <Co>' } });
  });

  it('renders a (slug, locale) once, but never keeps a render made without settings', async () => {
    const cached = service();
    await runWithLocale('en', () => cached.svc.page('about'));
    await runWithLocale('en', () => cached.svc.page('about'));
    expect(cached.reads()).toBe(1);
    const unread = service(NO_SETTINGS);
    await runWithLocale('en', () => unread.svc.page('about'));
    const again = await runWithLocale('en', () => unread.svc.page('about'));
    expect(unread.reads()).toBe(2);
    expect(again.page.title).toBe('About [[ site.name ]]');
  });

  it('answers 404 for an unknown slug', async () => {
    await expect(runWithLocale('en', () => service().svc.page('nope'))).rejects.toMatchObject({ status: 404, code: 'CONTENT_PAGE_NOT_FOUND' });
  });
});
