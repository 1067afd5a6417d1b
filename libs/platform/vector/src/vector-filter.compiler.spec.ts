import { compileVectorFilter, haversineMetres, isClauseFilter, normalizeVectorFilter } from './vector-filter.compiler';
import { toQdrantFilter } from './qdrant-vector-store.adapter';
import { VectorFilterError } from './vector-store.errors';
import type { VectorPayload } from './vector-store.port';

const matches = (filter: unknown, payload: VectorPayload, id: string | number = 1): boolean =>
  compileVectorFilter(filter)(id, payload);

describe('vector filters', () => {
  const doc: VectorPayload = {
    kind: 'faq',
    must: 'a payload field named like a clause',
    count: 3,
    ratio: 0.5,
    live: true,
    gone: null,
    none: [],
    tags: ['x', 'y'],
    meta: { lang: 'en', nested: { level: 2 } },
    items: [
      { sku: 'a', qty: 1 },
      { sku: 'b', qty: 5 },
    ],
  };

  it('treats the shorthand as equality on every key, dotted keys reaching into nested objects', () => {
    expect(matches({ kind: 'faq', 'meta.lang': 'en', 'meta.nested.level': 2, live: true }, doc)).toBe(true);
    expect(matches({ kind: 'faq', 'meta.lang': 'de' }, doc)).toBe(false);
    expect(matches({ count: '3' }, doc)).toBe(false);
    expect(matches({ ratio: 0.5, tags: 'y' }, doc)).toBe(true);
    expect(matches({ missing: 'x' }, doc)).toBe(false);
    expect(matches({}, doc)).toBe(true);
  });

  it('reads a scalar-valued key named must as a payload field, not a clause', () => {
    expect(isClauseFilter({ must: 'a payload field named like a clause' })).toBe(false);
    expect(matches({ must: 'a payload field named like a clause' }, doc)).toBe(true);
    expect(isClauseFilter({ must: [] })).toBe(true);
  });

  it('supports must, should, must_not and min_should, with single conditions or arrays', () => {
    expect(matches({ must: { key: 'kind', match: { value: 'faq' } } }, doc)).toBe(true);
    expect(matches({ must_not: [{ key: 'tags', match: { any: ['y', 'z'] } }] }, doc)).toBe(false);
    expect(
      matches(
        {
          should: [
            { key: 'count', range: { gt: 10 } },
            { key: 'count', range: { lte: 3 } },
          ],
        },
        doc,
      ),
    ).toBe(true);
    expect(matches({ should: [] }, doc)).toBe(true);
    const twoOfThree = {
      min_should: {
        min_count: 2,
        conditions: [
          { key: 'kind', match: { value: 'faq' } },
          { key: 'live', match: { value: false } },
          { key: 'count', range: { gte: 3 } },
        ],
      },
    };
    expect(matches(twoOfThree, doc)).toBe(true);
    expect(matches({ min_should: { ...twoOfThree.min_should, min_count: 3 } }, doc)).toBe(false);
  });

  it('matches except only when some value lies outside the list', () => {
    expect(matches({ must: [{ key: 'tags', match: { except: ['x'] } }] }, doc)).toBe(true);
    expect(matches({ must: [{ key: 'tags', match: { except: ['x', 'y'] } }] }, doc)).toBe(false);
    expect(matches({ must: [{ key: 'missing', match: { except: ['x'] } }] }, doc)).toBe(false);
  });

  it('supports is_empty, is_null, has_id, nested and array paths', () => {
    expect(
      matches(
        {
          must: [
            { is_empty: { key: 'none' } },
            { is_empty: { key: 'absent' } },
            { is_empty: { key: 'gone' } },
          ],
        },
        doc,
      ),
    ).toBe(true);
    expect(matches({ must: [{ is_empty: { key: 'tags' } }] }, doc)).toBe(false);
    expect(matches({ must: [{ is_null: { key: 'gone' } }] }, doc)).toBe(true);
    expect(matches({ must: [{ is_null: { key: 'absent' } }] }, doc)).toBe(false);
    expect(
      matches(
        { must: [{ has_id: ['7E57D004-2B97-4E7A-B45F-5387367791CD'] }] },
        doc,
        '7e57d004-2b97-4e7a-b45f-5387367791cd',
      ),
    ).toBe(true);
    expect(matches({ must: [{ has_id: [2, 3] }] }, doc, 1)).toBe(false);
    expect(matches({ 'items[].sku': 'b' }, doc)).toBe(true);
    // Unlike a flat path, nested requires one element to satisfy every condition.
    const flat = {
      must: [
        { key: 'items[].sku', match: { value: 'a' } },
        { key: 'items[].qty', range: { gte: 5 } },
      ],
    };
    expect(matches(flat, doc)).toBe(true);
    const inner = {
      must: [
        { key: 'sku', match: { value: 'a' } },
        { key: 'qty', range: { gte: 5 } },
      ],
    };
    expect(matches({ must: [{ nested: { key: 'items', filter: inner } }] }, doc)).toBe(false);
    expect(
      matches(
        {
          must: [
            {
              nested: {
                key: 'items',
                filter: {
                  must: [
                    { key: 'sku', match: { value: 'b' } },
                    { key: 'qty', range: { gte: 5 } },
                  ],
                },
              },
            },
          ],
        },
        doc,
      ),
    ).toBe(true);
  });

  describe('geo_radius', () => {
    const berlin = { lon: 13.405, lat: 52.52 };
    const potsdam = { lon: 13.0645, lat: 52.3906 }; // about 27.2 km from Berlin
    const hamburg = { lon: 9.9937, lat: 53.5511 }; // about 255 km
    const near = (radius: number, key = 'where') => ({ must: [{ key, geo_radius: { center: berlin, radius } }] });

    it('measures great-circle distance in metres', () => {
      expect(haversineMetres(berlin, berlin)).toBe(0);
      expect(haversineMetres(berlin, potsdam)).toBeGreaterThan(26_000);
      expect(haversineMetres(berlin, potsdam)).toBeLessThan(28_000);
      expect(haversineMetres(berlin, hamburg)).toBeGreaterThan(250_000);
      expect(haversineMetres(berlin, hamburg)).toBeLessThan(260_000);
      // Across the antimeridian the short way round.
      expect(haversineMetres({ lon: 179.9, lat: 0 }, { lon: -179.9, lat: 0 })).toBeLessThan(23_000);
    });

    it('matches payload points {lon, lat} within the radius, on nested keys and in arrays', () => {
      expect(matches(near(30_000), { where: potsdam })).toBe(true);
      expect(matches(near(20_000), { where: potsdam })).toBe(false);
      expect(matches(near(30_000, 'shop.loc'), { shop: { loc: { ...potsdam, name: 'extra keys are fine' } } })).toBe(true);
      expect(matches(near(30_000), { where: [hamburg, potsdam] })).toBe(true);
      expect(matches(near(30_000), { where: [hamburg] })).toBe(false);
      expect(matches(near(30_000, 'shops[].loc'), { shops: [{ loc: hamburg }, { loc: potsdam }] })).toBe(true);
      expect(matches({ must_not: near(30_000).must }, { where: hamburg })).toBe(true);
    });

    it('never matches a payload value that is not a point', () => {
      for (const where of [undefined, null, 'Berlin', [13.4, 52.5], { lat: 52.5 }, { lon: '13.4', lat: 52.5 }, { lon: 13.4, lat: 91 }]) {
        expect(matches(near(1e9), where === undefined ? {} : { where })).toBe(false);
      }
    });

    it.each([
      [{ center: berlin }, 'must[0].geo_radius.radius'],
      [{ center: berlin, radius: -1 }, 'must[0].geo_radius.radius'],
      [{ center: { lon: 200, lat: 0 }, radius: 1 }, 'must[0].geo_radius.center'],
      [{ center: { lat: 0 }, radius: 1 }, 'must[0].geo_radius.center'],
      [{ center: berlin, radius: 1, unit: 'km' }, 'must[0].geo_radius'],
      ['near', 'must[0].geo_radius'],
    ])('rejects geo_radius %j at %s', (geo_radius, at) => {
      expect(() => normalizeVectorFilter({ must: [{ key: 'where', geo_radius }] })).toThrow(expect.objectContaining({ path: at, status: 400 }));
    });

    it('refuses a geo_radius beside match or range', () => {
      expect(() => normalizeVectorFilter({ must: [{ key: 'where', geo_radius: { center: berlin, radius: 1 }, range: { gt: 0 } }] })).toThrow(
        expect.objectContaining({ path: 'must[0]', message: expect.stringContaining('exactly one of match, range or geo_radius') }),
      );
    });
  });

  it.each([
    [{ must: [{ key: 'title', match: { text: 'hi' } }] }, 'must[0].match'],
    [{ must: [{ key: 'when', range: { gte: '2024-01-01T00:00:00Z' } }] }, 'must[0].range.gte'],
    [{ must: [{ has_vector: '' }] }, 'must[0]'],
    [{ must: [{ key: 'a', match: { any: ['x', 1] } }] }, 'must[0].match.any'],
    [{ should: [{ key: 'a', match: { value: 1 }, range: { gt: 0 } }] }, 'should[0]'],
    [{ must: [{ key: '', match: { value: 1 } }] }, 'must[0].key'],
    [{ must: [{ has_id: ['not-a-uuid'] }] }, 'must[0].has_id[0]'],
    [{ tags: ['x', 'y'] }, 'tags'],
    [{ must: [{ key: 'a', match: { value: Number.NaN } }] }, 'must[0].match.value'],
  ])('rejects %j with a VectorFilterError at %s', (filter, at) => {
    expect(() => normalizeVectorFilter(filter)).toThrow(VectorFilterError);
    expect(() => normalizeVectorFilter(filter)).toThrow(expect.objectContaining({ path: at, status: 400 }));
  });

  it('sends Qdrant the filter JSON it understands', () => {
    expect(toQdrantFilter({ kind: 'faq', 'meta.lang': 'en', count: 3, ratio: 0.5 })).toEqual({
      must: [
        { key: 'kind', match: { value: 'faq' } },
        { key: 'meta.lang', match: { value: 'en' } },
        { key: 'count', match: { value: 3 } },
        // Qdrant matches only integers by value; a zero-width range is its float equality.
        { key: 'ratio', range: { gte: 0.5, lte: 0.5 } },
      ],
    });
    expect(
      toQdrantFilter({
        must: { key: 'a', match: { any: [1, 2] } },
        should: [],
        must_not: [{ has_id: ['7E57D004-2B97-4E7A-B45F-5387367791CD'] }],
      }),
    ).toEqual({
      must: [{ key: 'a', match: { any: [1, 2] } }],
      must_not: [{ has_id: ['7e57d004-2b97-4e7a-b45f-5387367791cd'] }],
    });
    expect(toQdrantFilter(undefined)).toBeUndefined();
  });

  it('forwards to Qdrant, as written, the conditions only Qdrant evaluates', () => {
    const qdrantOnly = [
      { key: 'where', geo_bounding_box: { top_left: { lon: 13, lat: 53 }, bottom_right: { lon: 14, lat: 52 } } },
      { key: 'title', match: { text: 'password reset' } },
      { key: 'title', match: { phrase: 'reset my password' } },
      { key: 'tags', values_count: { gte: 2 } },
      { key: 'when', datetime_range: { gte: '2024-01-01T00:00:00Z' } },
      { has_vector: 'image' },
      { some_future_condition: { key: 'x' } },
    ];
    for (const condition of qdrantOnly) {
      const sent = toQdrantFilter({ must: [condition, { key: 'lang', match: { value: 'en' } }] });
      // Exactly the caller's JSON on the wire, beside the normalised conditions.
      expect(JSON.parse(JSON.stringify(sent))).toEqual({ must: [condition, { key: 'lang', match: { value: 'en' } }] });
      // The embedded backend (no verbatim) still refuses it with a 400 naming where.
      expect(() => normalizeVectorFilter({ must: [condition] })).toThrow(VectorFilterError);
      expect(() => compileVectorFilter({ must: [condition] })).toThrow(VectorFilterError);
    }
    // The caller's object is copied, not shared.
    const mine = { key: 'where', geo_radius: { center: { lon: 1, lat: 2 }, radius: 3 } };
    const sent = toQdrantFilter({ must: [mine] }) as { must: Array<typeof mine> };
    sent.must[0].geo_radius.radius = 99;
    expect(mine.geo_radius.radius).toBe(3);
  });

  it('sends Qdrant a geo_radius as written, after checking it as the embedded backend does', () => {
    const geo = { key: 'where', geo_radius: { center: { lon: 13.4, lat: 52.5 }, radius: 1000 } };
    expect(JSON.parse(JSON.stringify(toQdrantFilter({ must: [geo] })))).toEqual({ must: [geo] });
    expect(() => toQdrantFilter({ must: [{ key: 'where', geo_radius: { center: { lon: 13.4, lat: 95 }, radius: 1 } }] })).toThrow(
      expect.objectContaining({ path: 'must[0].geo_radius.center', status: 400 }),
    );
  });

  it('still validates, for Qdrant, the conditions it evaluates itself (same messages as embedded)', () => {
    expect(() => toQdrantFilter({ must: [{ key: 'n', range: { above: 1 } }] })).toThrow(expect.objectContaining({ path: 'must[0].range', status: 400 }));
    expect(() => toQdrantFilter({ must: [{ key: 'a', match: { value: 1 }, range: { gt: 0 } }] })).toThrow(VectorFilterError);
    expect(() => toQdrantFilter({ must: [{ has_id: ['not-a-uuid'] }] })).toThrow(expect.objectContaining({ path: 'must[0].has_id[0]' }));
    // Not a clause filter (unknown top-level key): read as the equality shorthand, whose values are scalars.
    expect(() => toQdrantFilter({ wrong_clause: [{ key: 'a', match: { value: 1 } }] })).toThrow(expect.objectContaining({ path: 'wrong_clause' }));
  });
});
