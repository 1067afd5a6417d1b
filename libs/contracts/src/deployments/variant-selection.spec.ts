import murmurhash from 'murmurhash';
import fc from 'fast-check';
import { selectVariant, stickyPoint, stickyValueOf, VariantSelector } from './variant-selection';

const split = (a: number, b: number) => [
  { label: 'stable', weight: a },
  { label: 'canary', weight: b },
];

describe('variant selection', () => {
  it('normalises weights: 90+10 and 9+1 give the same variant at every point', () => {
    const big = new VariantSelector(split(90, 10));
    const small = new VariantSelector(split(9, 1));
    fc.assert(fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (p) => big.at(p)?.label === small.at(p)?.label));
    expect(big.at(0.899)?.label).toBe('stable');
    expect(big.at(0.901)?.label).toBe('canary');
  });

  it('never selects a zero-weight variant and has nothing to select when all weights are zero', () => {
    const s = new VariantSelector([{ label: 'off', weight: 0 }, { label: 'on', weight: 3 }, { label: 'neg', weight: -1 }]);
    for (let i = 0; i < 1000; i++) expect(s.select()?.label).toBe('on');
    const none = new VariantSelector(split(0, 0));
    expect(none.hasEligible).toBe(false);
    expect(none.select('session-1')).toBeUndefined();
    expect(none.select()).toBeUndefined();
  });

  it('splits 10,000 sticky sessions 90/10 within 9,000 ± 300, and each keeps its variant across 100 calls', () => {
    const s = new VariantSelector(split(90, 10));
    let stable = 0;
    for (let i = 0; i < 10_000; i++) {
      const id = `session-${i}`;
      const first = s.select(id)!.label;
      if (first === 'stable') stable++;
      if (i % 100 === 0) for (let k = 0; k < 100; k++) expect(s.select(id)!.label).toBe(first);
    }
    expect(Math.abs(stable - 9000)).toBeLessThanOrEqual(300);
  });

  it('keeps every sticky session on its variant across 100 calls (all sessions)', () => {
    const s = new VariantSelector(split(50, 50));
    const ids = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
    const firsts = ids.map((id) => s.select(id)!.label);
    for (let k = 0; k < 100; k++) for (let i = 0; i < ids.length; i += 97) expect(s.select(ids[i])!.label).toBe(firsts[i]);
  });

  it('draws without a sticky value, following the weights', () => {
    let n = 0;
    for (let i = 0; i < 20_000; i++) if (selectVariant(split(75, 25))!.label === 'stable') n++;
    expect(n / 20_000).toBeGreaterThan(0.72);
    expect(n / 20_000).toBeLessThan(0.78);
    expect(selectVariant(split(1, 1), undefined, () => 0.7)!.label).toBe('canary');
  });

  it('hashes with murmur3 x86 32 (known vectors) into [0, 1)', () => {
    // Reference values of MurmurHash3_x86_32 with seed 0.
    expect(stickyPoint('') * 2 ** 32).toBe(0);
    expect(stickyPoint('hello') * 2 ** 32).toBe(0x248bfa47);
    expect(stickyPoint('The quick brown fox jumps over the lazy dog') * 2 ** 32).toBe(0x2e4ff723);
    fc.assert(fc.property(fc.string(), (v) => stickyPoint(v) >= 0 && stickyPoint(v) < 1));
  });

  it('hashes ASCII and non-ASCII values exactly as the murmurhash package does over UTF-8', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })), (v) => stickyPoint(v) * 2 ** 32 === murmurhash.v3(v, 0)), { numRuns: 2000 });
    expect(stickyPoint('zażółć-sesja') * 2 ** 32).toBe(murmurhash.v3('zażółć-sesja', 0));
  });

  it('reads the sticky value from meta, ignoring absent, empty and structured values', () => {
    expect(stickyValueOf({ session_id: 'abc' }, 'session_id')).toBe('abc');
    expect(stickyValueOf({ user: 42 }, 'user')).toBe('42');
    expect(stickyValueOf({ session_id: '' }, 'session_id')).toBeUndefined();
    expect(stickyValueOf({ session_id: { a: 1 } }, 'session_id')).toBeUndefined();
    expect(stickyValueOf({ session_id: 'abc' }, undefined)).toBeUndefined();
    expect(stickyValueOf(undefined, 'session_id')).toBeUndefined();
  });
});
