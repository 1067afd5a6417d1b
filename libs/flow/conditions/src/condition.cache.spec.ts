import { compileCondition as compileEdgeCondition, compileEventFilter } from './index';
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

describe('event filters', () => {
  const on = (payload: unknown) => ({ port: '', output: payload, input: payload });

  it('read payload.<path> from the event payload', () => {
    const f = compileEventFilter('payload.kind == "refund" && payload.total > 10');
    expect(f.parseError).toBeUndefined();
    expect(f.evaluate(on({ kind: 'refund', total: '12.5' })).value).toBe(true);
    expect(f.evaluate(on({ kind: 'refund', total: 3 })).value).toBe(false);
    expect(f.evaluate(on({ kind: 'order' })).value).toBe(false);
    expect(f.evaluate(on(null)).value).toBe(false);
  });

  it('are not a thing in edge conditions, where payload is an unknown variable', () => {
    const c = compileEdgeCondition('payload.kind == "refund"');
    expect(c.parseError).toMatch(/payload/);
    expect(c.evaluate(on({ kind: 'refund' }))).toEqual({ value: false, error: expect.stringMatching(/payload/) });
  });
});
