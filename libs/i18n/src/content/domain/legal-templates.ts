import type { LocaleMap } from './localized-text';

/**
 * The legal pages seeded at start-up. Their prose uses settings tokens, expanded
 * when read (`[[ site.name ]]`, `[[ site.support_email ]]`), and one rendered date inside
 * `<time datetime="…">`, the volatile part a re-seed leaves out of its comparison (rule 12).
 * English and Polish; other locales come from the translator, held for review.
 */
export interface LegalTemplate {
  slug: string;
  title: LocaleMap;
  /** Body per locale: `{{date}}` is replaced by the rendered date element. */
  body: LocaleMap;
}

export const LEGAL_TEMPLATES: readonly LegalTemplate[] = Object.freeze([
  {
    slug: 'privacy',
    title: { en: 'Privacy policy', pl: 'Polityka prywatności' },
    body: {
      en: [
        '<h1>Privacy policy of [[ site.name ]]</h1>',
        '<p>Last updated: {{date}}</p>',
        '<p>[[ site.name ]] processes the personal data you give us (such as your e-mail address and the messages you send) only to provide the service you asked for, to keep it secure and to meet legal duties.</p>',
        '<p>We keep your data no longer than needed for these purposes and never sell it. You may ask for a copy, a correction or the deletion of your data at any time.</p>',
        '<p>Questions about your data: <a href="mailto:[[ site.support_email ]]">[[ site.support_email ]]</a>.</p>',
      ].join('\n'),
      pl: [
        '<h1>Polityka prywatności [[ site.name ]]</h1>',
        '<p>Ostatnia aktualizacja: {{date}}</p>',
        '<p>[[ site.name ]] przetwarza przekazane nam dane osobowe (takie jak adres e-mail i wysyłane wiadomości) wyłącznie w celu świadczenia usługi, o którą prosisz, zapewnienia jej bezpieczeństwa i wypełnienia obowiązków prawnych.</p>',
        '<p>Przechowujemy dane nie dłużej, niż jest to potrzebne do tych celów, i nigdy ich nie sprzedajemy. W każdej chwili możesz poprosić o kopię, sprostowanie lub usunięcie swoich danych.</p>',
        '<p>Pytania dotyczące danych: <a href="mailto:[[ site.support_email ]]">[[ site.support_email ]]</a>.</p>',
      ].join('\n'),
    },
  },
  {
    slug: 'terms',
    title: { en: 'Terms of service', pl: 'Regulamin' },
    body: {
      en: [
        '<h1>Terms of service of [[ site.name ]]</h1>',
        '<p>Last updated: {{date}}</p>',
        '<p>By using [[ site.name ]] you agree to these terms. Use the service lawfully and do not try to disrupt it or reach data that is not yours.</p>',
        '<p>The service is provided as it is. We may change these terms; the date above tells you when they last changed.</p>',
        '<p>Contact: <a href="mailto:[[ site.support_email ]]">[[ site.support_email ]]</a>.</p>',
      ].join('\n'),
      pl: [
        '<h1>Regulamin [[ site.name ]]</h1>',
        '<p>Ostatnia aktualizacja: {{date}}</p>',
        '<p>Korzystając z [[ site.name ]], akceptujesz niniejszy regulamin. Korzystaj z usługi zgodnie z prawem i nie próbuj zakłócać jej działania ani uzyskać dostępu do cudzych danych.</p>',
        '<p>Usługa jest świadczona w obecnym stanie. Możemy zmienić regulamin; data powyżej wskazuje ostatnią zmianę.</p>',
        '<p>Kontakt: <a href="mailto:[[ site.support_email ]]">[[ site.support_email ]]</a>.</p>',
      ].join('\n'),
    },
  },
]);

const TIME_ELEMENT = /<time datetime="[^"<>]*">[^<]*<\/time>/g;

/** The date element of `locale`: `<time datetime="2026-11-25">25 November 2026</time>`. */
export function renderDate(date: Date, locale: string): string {
  let text: string;
  try {
    text = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(date);
  } catch {
    text = date.toISOString().slice(0, 10);
  }
  return `<time datetime="${date.toISOString().slice(0, 10)}">${text}</time>`;
}

/** The template's title and body with the date rendered in each locale. */
export function renderLegal(t: LegalTemplate, date: Date): { title: Record<string, string>; body: Record<string, string> } {
  const body: Record<string, string> = {};
  for (const [locale, html] of Object.entries(t.body)) body[locale] = html.replace('{{date}}', renderDate(date, locale));
  return { title: { ...t.title }, body };
}

/** The prose of a page without its rendered dates (rule 12: a timestamp is not a change), as one comparable string. */
export function proseWithoutDate(p: { title: LocaleMap; body: LocaleMap }): string {
  const sorted = (m: LocaleMap) => Object.keys(m).sort().map((l) => [l, m[l].replace(TIME_ELEMENT, '<time></time>')]);
  return JSON.stringify({ title: sorted(p.title), body: sorted(p.body) });
}
