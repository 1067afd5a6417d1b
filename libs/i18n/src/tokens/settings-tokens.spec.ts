import type { PublicSettingsSnapshot } from '@flowplane/contracts';
import { escapeHtml, expandHtml, expandPlain, expandSettingsTokens, NO_SETTINGS, type SettingLookup, snapshotLookup } from './settings-tokens';

const settings: Record<string, string> = {
  'site.name': 'Acme & Sons',
  'site.tagline': '<b>Best</b> "tools" it\'s',
  'site.loop': 'see [[ site.name ]]',
  'site.template': 'Hi {{.Name}}',
  'shop.currency': 'EUR',
  'site.empty': '',
};
const lookup: SettingLookup = (module, key) => settings[`${module}.${key}`];

describe('expandSettingsTokens', () => {
  it('replaces [[ module.key ]] with or without spaces, several per string, in plain text unescaped', () => {
    expect(expandPlain('Welcome to [[ site.name ]]! Prices in [[shop.currency]].', lookup)).toBe('Welcome to Acme & Sons! Prices in EUR.');
    expect(expandPlain('[[site.name]][[ shop.currency ]]', lookup)).toBe('Acme & SonsEUR');
    expect(expandPlain('[[ site.tagline ]]', lookup)).toBe('<b>Best</b> "tools" it\'s');
  });

  it('HTML variant escapes the values and leaves the surrounding markup untouched', () => {
    expect(expandHtml('<h1 title="[[ site.name ]]">[[ site.tagline ]]</h1>', lookup)).toBe(
      '<h1 title="Acme &amp; Sons">&lt;b&gt;Best&lt;/b&gt; &quot;tools&quot; it&#39;s</h1>',
    );
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('leaves unresolved tokens verbatim: unknown, private (not in the lookup), empty, or malformed', () => {
    const text = 'a [[ site.nmae ]] b [[ secrets.apiKey ]] c [[ site.empty ]] d [[ site ]] e [[ .name ]] f [[ site.name';
    expect(expandPlain(text, lookup)).toBe(text);
    expect(expandHtml('<p>[[ site.nmae ]]</p>', lookup)).toBe('<p>[[ site.nmae ]]</p>');
  });

  it('never rescans substituted values (no recursion), so a value holding a token or a placeholder stays literal', () => {
    expect(expandPlain('[[ site.loop ]]', lookup)).toBe('see [[ site.name ]]');
    expect(expandPlain('[[ site.template ]]', lookup)).toBe('Hi {{.Name}}');
    // A token assembled from a value and the text after it is not expanded either.
    const half: SettingLookup = (m, k) => (m === 'a' && k === 'b' ? '[[ site' : undefined);
    expect(expandPlain('[[ a.b ]].name ]]', (m, k) => half(m, k) ?? lookup(m, k))).toBe('[[ site.name ]]');
  });

  it('reads each token once per occurrence and returns strings without [[ untouched, without a lookup', () => {
    const seen: string[] = [];
    expect(expandPlain('[[ shop.currency ]] [[ shop.currency ]]', (m, k) => (seen.push(`${m}.${k}`), lookup(m, k)))).toBe('EUR EUR');
    expect(seen).toEqual(['shop.currency', 'shop.currency']);
    const never: SettingLookup = () => {
      throw new Error('must not be called');
    };
    expect(expandSettingsTokens('no tokens {{.Name}} here', never, 'html')).toBe('no tokens {{.Name}} here');
  });

  it('expands nothing without a reader', () => {
    expect(expandPlain('[[ site.name ]]', NO_SETTINGS)).toBe('[[ site.name ]]');
  });
});

describe('snapshotLookup', () => {
  const snapshot: PublicSettingsSnapshot = {
    sourceLocale: 'en',
    settings: {
      site: {
        name: { localized: false, value: 'Acme' },
        title: { localized: true, value: { en: 'Shop', pl: 'Sklep', de: '' } },
        onlyFr: { localized: true, value: { fr: 'Boutique' } },
        count: { localized: false, value: 3 },
        flag: { localized: false, value: false },
        unset: { localized: false, value: null },
      },
    },
  };

  it('resolves localized settings with the locale: requested, its base, the source, then any non-empty value', () => {
    expect(snapshotLookup(snapshot, 'pl')('site', 'title')).toBe('Sklep');
    expect(snapshotLookup(snapshot, 'pl-PL')('site', 'title')).toBe('Sklep');
    expect(snapshotLookup(snapshot, 'de')('site', 'title')).toBe('Shop'); // empty text does not count
    expect(snapshotLookup(snapshot, '')('site', 'title')).toBe('Shop'); // '' is the source language
    expect(snapshotLookup(snapshot, 'pl')('site', 'onlyFr')).toBe('Boutique');
  });

  it('renders plain values as text and knows nothing of absent modules, keys or prototype names', () => {
    const l = snapshotLookup(snapshot, 'pl');
    expect(l('site', 'name')).toBe('Acme');
    expect(l('site', 'count')).toBe('3');
    expect(l('site', 'flag')).toBe('false');
    expect(l('site', 'unset')).toBeUndefined();
    expect(l('site', 'missing')).toBeUndefined();
    expect(l('other', 'name')).toBeUndefined();
    expect(l('site', 'constructor')).toBeUndefined();
    expect(l('__proto__', 'toString')).toBeUndefined();
  });

  it('expands a localized token in the context locale', () => {
    expect(expandPlain('[[ site.title ]] · [[ site.name ]]', snapshotLookup(snapshot, 'pl'))).toBe('Sklep · Acme');
  });
});
