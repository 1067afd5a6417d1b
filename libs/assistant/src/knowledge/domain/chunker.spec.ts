import { chunkDocument, embeddingText, formatOfPath } from './chunker';

const sentence = (i: number) => `Sentence number ${i} explains one more detail of the refund policy in plain words.`;
const paragraph = (from: number, count: number) => Array.from({ length: count }, (_, i) => sentence(from + i)).join(' ');

describe('chunkDocument', () => {
  it('packs long sections into chunks of at most 800 characters that overlap by about 100', () => {
    const text = `# Refunds\n\n${paragraph(0, 20)}\n\n${paragraph(20, 20)}\n\n${paragraph(40, 20)}`;
    const chunks = chunkDocument({ id: 'policy', title: 'Policy', text });
    expect(chunks.length).toBeGreaterThanOrEqual(6);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(800);
    for (const c of chunks.slice(0, -1)) expect(c.text.length).toBeGreaterThan(400);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1].text;
      const head = chunks[i].text.slice(0, 40);
      const at = prev.lastIndexOf(head);
      expect(at).toBeGreaterThan(-1);
      const shared = prev.length - at;
      expect(shared).toBeGreaterThanOrEqual(60);
      expect(shared).toBeLessThanOrEqual(110);
    }
    // Nothing lost: every sentence is in some chunk.
    for (let i = 0; i < 60; i++) expect(chunks.some((c) => c.text.includes(sentence(i)))).toBe(true);
  });

  it('keeps document id, title, URL and the heading path on each chunk, with deterministic ids', () => {
    const text = '# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\n### On Linux\n\nUse the package.\n\n## Use\n\nOpen the app.\n\n```\n# not a heading\n```';
    const chunks = chunkDocument({ id: 'guide', title: 'User guide', url: 'https://example.test/guide', text });
    expect(chunks.map((c) => [c.id, c.headings, c.text])).toEqual([
      ['guide#0', ['Guide'], 'Intro text.'],
      ['guide#1', ['Guide', 'Install'], 'Run the installer.'],
      ['guide#2', ['Guide', 'Install', 'On Linux'], 'Use the package.'],
      ['guide#3', ['Guide', 'Use'], 'Open the app.\n\n```\n# not a heading\n```'],
    ]);
    expect(chunks.every((c) => c.docId === 'guide' && c.title === 'User guide' && c.url === 'https://example.test/guide')).toBe(true);
    expect(embeddingText(chunks[2])).toBe('User guide > Guide > Install > On Linux\nUse the package.');
  });

  it('never lets a chunk span two sections', () => {
    const text = `# A\n\n${paragraph(0, 3)}\n\n# B\n\n${paragraph(3, 3)}`;
    const chunks = chunkDocument({ id: 'd', title: 'D', text });
    expect(chunks.map((c) => c.headings[0])).toEqual(['A', 'B']);
  });

  it('strips scripts, styles and markup from HTML and reads its headings', () => {
    const html = `<html><head><title>T</title><style>body{color:red}</style></head><body>
      <script>alert("x")</script><h1>Shipping</h1><p>We ship <b>worldwide</b> &amp; fast.</p>
      <noscript>enable js</noscript><h2>Costs</h2><ul><li>Free over 50 EUR</li><li>Else 5 EUR</li></ul>
      <script type="text/javascript">document.write('<p>injected</p>')</script></body></html>`;
    const chunks = chunkDocument({ id: 'ship', title: 'Shipping', text: html, format: 'html' });
    expect(chunks.map((c) => [c.headings, c.text])).toEqual([
      [['Shipping'], 'We ship worldwide & fast.'],
      [['Shipping', 'Costs'], 'Free over 50 EUR\n\nElse 5 EUR'],
    ]);
    const all = chunks.map((c) => c.text).join(' ');
    expect(all).not.toMatch(/alert|color:red|injected|enable js|<|>/);
  });

  it('splits plain text by blank lines and treats # as text', () => {
    const chunks = chunkDocument({ id: 't', title: 'T', text: '# not a heading\n\nsecond paragraph', format: 'text' });
    expect(chunks).toHaveLength(1);
    expect(chunks[0].headings).toEqual([]);
    expect(chunks[0].text).toBe('# not a heading\n\nsecond paragraph');
  });

  it('cuts a paragraph without breaks at the size limit and gives no chunk for blank text', () => {
    const chunks = chunkDocument({ id: 'x', title: 'X', text: 'a'.repeat(2000), format: 'text' });
    expect(chunks.every((c) => c.text.length <= 800)).toBe(true);
    expect(chunkDocument({ id: 'e', title: 'E', text: '  \n\n ' })).toEqual([]);
    expect(chunkDocument({ id: 'h', title: 'H', text: '<script>x()</script><style>p{}</style>', format: 'html' })).toEqual([]);
  });

  it('maps file extensions to formats', () => {
    expect(['a.md', 'b.HTML', 'c.htm', 'd.txt', 'e.pdf'].map(formatOfPath)).toEqual(['markdown', 'html', 'html', 'text', undefined]);
  });
});
