import fc from 'fast-check';
import { EXCERPT_INSTRUCTIONS, forbidsMarkers, formatExcerptBlock, formatExcerpts, parseExcerpts } from './excerpts';

describe('excerpts format', () => {
  it('round-trips excerpts through a system message, titles with colons and multi-line text included', () => {
    const excerpts = [
      { n: 1, title: 'Returns: policy', text: 'Items can be returned\nwithin 30 days. Keep the receipt.' },
      { n: 2, title: 'Shipping', text: 'We ship in 2 days: always.' },
    ];
    const prompt = formatExcerpts(excerpts);
    expect(prompt).toContain('Excerpts:\n[1] Returns - policy: Items can be returned within 30 days. Keep the receipt.\n[2] Shipping: We ship in 2 days: always.');
    expect(prompt).toContain(EXCERPT_INSTRUCTIONS.cite);
    expect(parseExcerpts(`${prompt}\n\nAnswer briefly.`)).toEqual([
      { n: 1, title: 'Returns - policy', text: 'Items can be returned within 30 days. Keep the receipt.' },
      { n: 2, title: 'Shipping', text: 'We ship in 2 days: always.' },
    ]);
  });

  it('says whether markers are forbidden', () => {
    expect(forbidsMarkers(formatExcerpts([], { citations: false }))).toBe(true);
    expect(forbidsMarkers(formatExcerpts([], { citations: true }))).toBe(false);
    expect(forbidsMarkers('Answer without [N] markers.')).toBe(true);
    expect(parseExcerpts('You are helpful.\n[1] not an excerpt: no header')).toEqual([]);
  });

  it('folds whitespace of any title and text exactly as one global replace would', () => {
    const oneLine = (t: string) => t.replace(/\s+/g, ' ').trim();
    const reference = (title: string, text: string) => `Excerpts:\n[1] ${oneLine(title).replace(/:\s/g, ' - ').replace(/:$/, '') || 'Untitled'}: ${oneLine(text)}`;
    const piece = fc.constantFrom('a', 'word', ' ', '  ', '\n', '\t', '\r\n', '\u00a0', '\u2003', ':', ': ', 'ü');
    const str = fc.array(piece, { maxLength: 30 }).map((p) => p.join(''));
    fc.assert(
      fc.property(str, str, (title, text) => {
        expect(formatExcerptBlock([{ n: 1, title, text }])).toBe(reference(title, text));
      }),
      { numRuns: 500 },
    );
  });
});
