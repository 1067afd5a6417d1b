import { combineFilters } from './search.service';

const geo = { key: 'where', geo_radius: { center: { lon: 13.4, lat: 52.5 }, radius: 1000 } };

describe('combineFilters (query payload shortcut + filter)', () => {
  it('joins the payload shortcut and the filter under one must', () => {
    expect(combineFilters({ lang: 'en' }, { must: [{ key: 'year', range: { gte: 2020 } }] })).toEqual({
      must: [{ must: [{ key: 'lang', match: { value: 'en' } }] }, { must: [{ key: 'year', range: { gte: 2020 } }] }],
    });
    expect(combineFilters(undefined, undefined)).toBeUndefined();
  });

  it('forwards conditions only Qdrant evaluates as written when the backend is Qdrant', () => {
    const combined = combineFilters({ lang: 'en' }, { must: [geo] }, { verbatim: true });
    expect(JSON.parse(JSON.stringify(combined))).toEqual({ must: [{ must: [{ key: 'lang', match: { value: 'en' } }] }, { must: [geo] }] });
  });

  it('refuses them with a 400 naming the place on the embedded backend', () => {
    expect(() => combineFilters(undefined, { must: [geo] })).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining('filter: invalid vector filter at must[0].geo_radius') }));
    // The shortcut takes scalars only, whatever the backend.
    expect(() => combineFilters({ where: { lat: 1 } } as never, undefined, { verbatim: true })).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('combineFilters top-level keys', () => {
  it.each([false, true])('refuses keys other than the Qdrant clauses with a 400 naming them (verbatim %s)', (verbatim) => {
    const attempt = () => combineFilters(undefined, { must: [{ key: 'lang', match: { value: 'en' } }], lang: 'de', boost: { x: 1 } }, { verbatim });
    expect(attempt).toThrow(expect.objectContaining({ status: 400, code: 'VECTOR_FILTER_INVALID', message: expect.stringMatching(/"lang", "boost"/) }));
    // The equality shorthand belongs in `payload`, not in `filter`.
    expect(() => combineFilters(undefined, { lang: 'de' }, { verbatim })).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining('"lang"') }));
  });

  it('accepts every clause and an empty filter', () => {
    const cond = { key: 'lang', match: { value: 'en' } };
    expect(() => combineFilters(undefined, { must: [cond], should: [cond], must_not: [cond], min_should: { conditions: [cond], min_count: 1 } })).not.toThrow();
    expect(combineFilters(undefined, {})).toEqual({});
  });
});
