import { ConditionCache, compileCondition, compileConditionCached } from './index';

describe('compiled condition cache', () => {
  it('returns the same compiled instance for the same source', () => {
    const a = compileConditionCached('port == "ok"');
    expect(compileConditionCached('port == "ok"')).toBe(a);
    expect(compileConditionCached(undefined)).toBe(compileConditionCached(null));
    expect(compileConditionCached(undefined).isDefault).toBe(true);
  });

  it('caches parse failures too, so a broken edge is not re-parsed per run', () => {
    const cache = new ConditionCache(4);
    const broken = cache.get('a + b');
    expect(broken.parseError).toContain('arithmetic');
    expect(cache.get('a + b')).toBe(broken);
  });

  it('evicts the least recently used source beyond its capacity', () => {
    const cache = new ConditionCache(2);
    const one = cache.get('port == "1"');
    const two = cache.get('port == "2"');
    expect(cache.get('port == "1"')).toBe(one); // now "2" is least recently used
    cache.get('port == "3"');
    expect(cache.size).toBe(2);
    expect(cache.get('port == "1"')).toBe(one);
    expect(cache.get('port == "2"')).not.toBe(two);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new ConditionCache(0)).toThrow(RangeError);
  });

  it('a cached condition behaves exactly like a fresh one', () => {
    const ctx = { port: 'ok', output: { score: 0.7 }, input: {} };
    const source = 'port == "ok" && output.score >= 0.5';
    expect(compileConditionCached(source).evaluate(ctx)).toEqual(compileCondition(source).evaluate(ctx));
  });
});
