import { safeHttpUrl, sourceLinks } from './assistant-transcript';

describe('transcript sources', () => {
  it('links http(s) sources with their number and title', () => {
    expect(sourceLinks([{ n: 1, title: 'Refund policy', url: 'https://example.com/refunds', score: 0.4 }])).toEqual([{ label: '[1] Refund policy', href: 'https://example.com/refunds' }]);
  });

  it('never links other schemes and keeps their title as text', () => {
    expect(sourceLinks([{ title: 'Bad', url: 'javascript:alert(1)' }, { title: 'Data', url: 'data:text/html,x' }])).toEqual([{ label: 'Bad' }, { label: 'Data' }]);
    expect(safeHttpUrl('/relative')).toBeUndefined();
  });

  it('skips entries without a title or address, and non-lists', () => {
    expect(sourceLinks([null, 3, {}, { title: '  ' }])).toEqual([]);
    expect(sourceLinks('x')).toEqual([]);
    expect(sourceLinks([{ url: 'http://a.example/' }])).toEqual([{ label: 'http://a.example/', href: 'http://a.example/' }]);
  });
});
