import { htmlText, pageIndexName } from './page-search';

describe('page search documents', () => {
  it('reads the text of an HTML body: scripts and styles dropped, tags as spaces, entities decoded', () => {
    expect(htmlText('<h1>Fahrräder</h1><p>Wir&nbsp;vermieten <b>Räder</b> &amp; Helme &#x2014; &#8364;5</p><script>alert(1)</script><style>p{}</style>')).toBe('Fahrräder Wir vermieten Räder & Helme — €5');
    expect(htmlText('a &unknown; b')).toBe('a &unknown; b');
  });

  it('names one index per locale', () => {
    expect(pageIndexName('pt-BR')).toBe('pages-pt-BR');
  });
});
