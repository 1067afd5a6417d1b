import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { href, Link, useRoute } from '../../router';
import { ErrorNotice, Loading, PageTitle } from '../../ui';

type Preview = { slug: string; locale: string; title: string; body: string; seo: { title?: string; description?: string } };

/**
 * What readers of a locale would see if the held candidates were approved. The body is the admin's
 * own HTML: it is shown in a sandboxed frame (no scripts, no same origin, no forms) or as text, never
 * put into the console's DOM.
 */
export default function PreviewPage({ slug }: { slug: string }) {
  const { route, navigate } = useRoute();
  const locale = route.query.get('locale') ?? '';
  const [asText, setAsText] = useState(false);
  const preview = useQuery({
    queryKey: ['content', 'preview', slug, locale],
    queryFn: async () => unwrap(await api.i18n.GET('/api/v1/admin/content/pages/{slug}/preview', { params: { path: { slug }, query: locale ? { locale } : {} } })) as unknown as Preview,
  });
  return (
    <>
      <PageTitle>{$t('content.preview.title', 'Preview of {slug} in {locale}', { slug, locale: locale || '–' })}</PageTitle>
      <p className="crumbs">
        <Link to={href(['content', 'pages', slug])}>{$t('content.preview.back', 'Back to the page')}</Link> · <Link to={href(['content', 'review'])}>{$t('content.tab.review', 'Review queue')}</Link>
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const l = String(new FormData(e.currentTarget).get('locale') ?? '').trim();
          navigate(href(['content', 'pages', slug, 'preview'], { locale: l }), true);
        }}
      >
        <label htmlFor="pv-locale">{$t('content.preview.locale', 'Locale')}</label>
        <input id="pv-locale" name="locale" defaultValue={locale} size={8} />
        <button type="submit">{$t('content.preview.show', 'Show')}</button>
        <input id="pv-text" type="checkbox" checked={asText} onChange={(e) => setAsText(e.target.checked)} />
        <label htmlFor="pv-text">{$t('content.preview.asText', 'Show the HTML as text')}</label>
      </form>
      {preview.isPending ? <Loading /> : null}
      <ErrorNotice error={preview.error} onRetry={() => void preview.refetch()} />
      {preview.data ? (
        <article className="card preview" lang={preview.data.locale}>
          <h2 className="preview-title">{preview.data.title}</h2>
          {preview.data.seo.title || preview.data.seo.description ? (
            <p className="muted small">
              {preview.data.seo.title ? $t('content.preview.seoTitle', 'SEO title: {text}', { text: preview.data.seo.title }) : ''} {preview.data.seo.description ? $t('content.preview.seoDescription', 'SEO description: {text}', { text: preview.data.seo.description }) : ''}
            </p>
          ) : null}
          {asText ? (
            <pre className="code preview-body">{preview.data.body}</pre>
          ) : (
            <iframe className="preview-frame" title={$t('content.preview.frame', 'Page body as readers see it')} sandbox="" srcDoc={`<!doctype html><html lang="${preview.data.locale.replace(/[^\w-]/g, '')}"><meta charset="utf-8"><title>${slug.replace(/[^\w-]/g, "")}</title><body>${preview.data.body}</body></html>`} />
          )}
        </article>
      ) : null}
    </>
  );
}
