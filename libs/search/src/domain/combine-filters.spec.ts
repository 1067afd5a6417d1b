import { combineFilters } from './search.service';

const geo = { key: 'where', geo_bounding_box: { top_left: { lon: 13, lat: 53 }, bottom_right: { lon: 14, lat: 52 } } };
const radius = { key: 'where', geo_radius: { center: { lon: 13.4, lat: 52.5 }, radius: 1000 } };

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
    expect(() => combineFilters(undefined, { must: [geo] })).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining('filter: invalid vector filter at must[0].geo_bounding_box') }));
    // The shortcut takes scalars only, whatever the backend.
    expect(() => combineFilters({ where: { lat: 1 } } as never, undefined, { verbatim: true })).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('combineFilters: the filters users write most mean the same on both backends', () => {
  it.each([false, true])('takes geo_radius on either backend, as written (verbatim %s)', (verbatim) => {
    expect(JSON.parse(JSON.stringify(combineFilters(undefined, { must: [radius] }, { verbatim })))).toEqual({ must: [radius] });
  });

  it.each([false, true])('maps has_id document ids to the point ids they are stored under (verbatim %s)', (verbatim) => {
    const combined = combineFilters(undefined, { should: [{ has_id: ['faq-1', 42, '7'] }], min_should: { conditions: [{ must_not: { has_id: ['7E57D004-2B97-4E7A-B45F-5387367791CD'] } }], min_count: 1 } }, { verbatim }) as {
      should: Array<{ has_id: unknown[] }>;
      min_should: { conditions: Array<{ must_not: Array<{ has_id: unknown[] }> }> };
    };
    const [text, number, numeric] = combined.should[0].has_id;
    expect(text).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/);
    expect([number, numeric]).toEqual([42, 7]);
    expect(combined.min_should.conditions[0].must_not[0].has_id).toEqual(['7e57d004-2b97-4e7a-b45f-5387367791cd']);
  });

  it('refuses a has_id entry that is no document id with a 400 naming it', () => {
    expect(() => combineFilters(undefined, { must: [{ has_id: ['ok', { id: 1 }] }] })).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringContaining('filter: invalid vector filter at must[0].has_id[1]') }),
    );
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
