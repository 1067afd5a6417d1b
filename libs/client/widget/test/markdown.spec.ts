import { inline, parseMarkdown, safeHref } from '../src/markdown';

describe('widget Markdown subset', () => {
  it('parses paragraphs, headings, lists and fenced code into blocks', () => {
    const blocks = parseMarkdown('# Title\n\nFirst line\nsecond line\n\n- one\n- **two**\n\n1. a\n2) b\n\n```ts\nconst x = "<b>";\n```\ntail');
    expect(blocks).toEqual([
      { t: 'h', c: [['Title']] },
      { t: 'p', c: [['First line'], ['second line']] },
      { t: 'ul', items: [['one'], [{ t: 'b', c: ['two'] }]] },
      { t: 'ol', items: [['a'], ['b']] },
      { t: 'pre', s: 'const x = "<b>";' },
      { t: 'p', c: [['tail']] },
    ]);
  });

  it('parses bold, italic, inline code and links, nested', () => {
    expect(inline('a **b _c_** `d*e*` _f_ [g](https://x.example/y) [m](mailto:a@b.example)')).toEqual([
      'a ',
      { t: 'b', c: ['b ', { t: 'i', c: ['c'] }] },
      ' ',
      { t: 'code', s: 'd*e*' },
      ' ',
      { t: 'i', c: ['f'] },
      ' ',
      { t: 'a', href: 'https://x.example/y', c: ['g'] },
      ' ',
      { t: 'a', href: 'mailto:a@b.example', c: ['m'] },
    ]);
    expect(inline('snake_case_name stays')).toEqual(['snake_case_name stays']);
    expect(inline('window.__a = 1; window.__b = 2; __strong__')).toEqual(['window.__a = 1; window.__b = 2; ', { t: 'b', c: ['strong'] }]);
  });

  it('keeps links other than http(s) and mailto as plain text, and HTML as text', () => {
    expect(inline('[click](javascript:alert(1))').join('')).not.toContain('{');
    expect(inline('[click](javascript:alert)')).toEqual(['click']);
    expect(inline('[x](data:text/html,hi)')).toEqual(['x']);
    expect(inline('[x](/relative)')).toEqual(['x']);
    expect(safeHref('JAVASCRIPT:alert(1)')).toBeUndefined();
    expect(parseMarkdown('<script>alert(1)</script> <img src=x onerror=alert(1)>')).toEqual([{ t: 'p', c: [['<script>alert(1)</script> <img src=x onerror=alert(1)>']] }]);
  });

  it('runs a fence still open (an answer mid-stream) to the end', () => {
    expect(parseMarkdown('Code:\n```\nline 1\nline 2')).toEqual([{ t: 'p', c: [['Code:']] }, { t: 'pre', s: 'line 1\nline 2' }]);
  });
});
