import fc from 'fast-check';
import { DEFAULT_HNSW_TUNING, HnswCollection } from './hnsw-collection.engine';

/** The exact-scan answer by definition: every point scored, sorted best first, ties by id, first k. */
function reference(points: Array<{ id: number; vector: number[] }>, query: number[], k: number, distance: 'cosine' | 'euclid') {
  const unit = (v: number[]) => {
    const n = Math.hypot(...v);
    return n > 0 ? v.map((x) => x / n) : v;
  };
  const q = distance === 'cosine' ? unit(query) : query;
  const f32 = (v: number[]) => Array.from(Float32Array.from(distance === 'cosine' ? unit(v) : v));
  const scored = points.map((p) => {
    const s = f32(p.vector);
    const score = distance === 'euclid' ? Math.sqrt(s.reduce((a, x, i) => a + (q[i] - x) ** 2, 0)) : s.reduce((a, x, i) => a + q[i] * x, 0);
    return { id: p.id, score };
  });
  scored.sort((a, b) => (distance === 'euclid' ? a.score - b.score : b.score - a.score) || a.id - b.id);
  return scored.slice(0, k);
}

describe('HnswCollection exact scan (small collections)', () => {
  it('returns the k best by score, ties by id, for any points, query and k (cosine and euclid)', () => {
    const coord = fc.integer({ min: -3, max: 3 }); // few values: many equal vectors, so many ties
    fc.assert(
      fc.property(
        fc.array(fc.array(coord, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 40 }),
        fc.array(coord, { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom('cosine' as const, 'euclid' as const),
        (vectors, query, k, distance) => {
          const c = HnswCollection.create('t', 3, distance, DEFAULT_HNSW_TUNING);
          const points = vectors.map((vector, id) => ({ id, vector }));
          c.upsert(points.map((p) => ({ ...p, payload: {} })));
          const got = c.query(query, k).map((h) => ({ id: h.id as number, score: h.score }));
          const want = reference(points, query, k, distance);
          // The k best scores (the reference rounds differently in the last float32 bit, so
          // near-ties may come in either order there; each hit's score is its own point's).
          expect(got).toHaveLength(want.length);
          const own = new Map(reference(points, query, points.length, distance).map((h) => [h.id, h.score]));
          got.forEach((h, i) => {
            expect(h.score).toBeCloseTo(want[i].score, 5);
            expect(h.score).toBeCloseTo(own.get(h.id)!, 5);
          });
          expect(new Set(got.map((h) => h.id)).size).toBe(got.length);
          // Best first; equal scores (equal vectors, zero vectors) by ascending id.
          for (let i = 1; i < got.length; i++) {
            const [a, b] = [got[i - 1], got[i]];
            if (a.score === b.score) expect(a.id).toBeLessThan(b.id);
            else expect(distance === 'euclid' ? a.score < b.score : a.score > b.score).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers from the new vector after an upsert of an id it has already scanned', () => {
    const c = HnswCollection.create('t', 2, 'cosine', DEFAULT_HNSW_TUNING);
    c.upsert([
      { id: 1, vector: [1, 0], payload: {} },
      { id: 2, vector: [0, 1], payload: {} },
    ]);
    expect(c.query([1, 0], 1)[0].id).toBe(1);
    c.upsert([{ id: 1, vector: [0, 1], payload: {} }]);
    c.upsert([{ id: 2, vector: [1, 0], payload: {} }]);
    expect(c.query([1, 0], 2).map((h) => h.id)).toEqual([2, 1]);
  });
});

describe('HnswCollection exact scan scores and hits', () => {
  /** The exact scan's score by definition: one left-to-right sum over every component of the query (normalised for cosine) and the stored vector. */
  function fullSum(stored: number[], query: number[], distance: 'cosine' | 'dot'): number {
    let sum = 0;
    for (const x of query) sum += x * x;
    const n = Math.sqrt(sum);
    const q = distance === 'cosine' && n > 0 ? query.map((x) => x / n) : query;
    let dot = 0;
    for (let i = 0; i < q.length; i++) dot += q[i] * stored[i];
    return dot;
  }

  /** Each point's score by `fullSum`, over the vector the collection holds (scrolled out of it). */
  function fullSums(c: HnswCollection, query: number[], distance: 'cosine' | 'dot'): Map<number, number> {
    const { points } = c.scroll(1000, null, undefined, false, true);
    return new Map(points.map((p) => [p.id as number, fullSum(p.vector!, query, distance)]));
  }

  it('scores mostly-zero and dense queries to the bit as the full sum, from kept and from graph-read vectors', () => {
    const dim = 48;
    // Values whose products and sums round, so any change to the order of the sum shows.
    const value = fc.oneof(fc.constant(0), fc.integer({ min: -1_000_000, max: 1_000_000 }).map((x) => x / 7919));
    const sparse = fc.array(fc.tuple(fc.integer({ min: 0, max: dim - 1 }), value), { minLength: 2, maxLength: 20 }).map((pairs) => {
      const v = new Array<number>(dim).fill(0);
      for (const [i, x] of pairs) v[i] = x;
      return v;
    });
    const dense = fc.array(value, { minLength: dim, maxLength: dim });
    fc.assert(
      fc.property(
        fc.array(dense, { minLength: 1, maxLength: 12 }),
        fc.oneof(sparse, dense),
        fc.constantFrom('cosine' as const, 'dot' as const),
        (vectors, query, distance) => {
          // A threshold below the point count: the filtered query below reads vectors from the graph.
          const small = HnswCollection.create('t', dim, distance, DEFAULT_HNSW_TUNING);
          const large = HnswCollection.create('t', dim, distance, { ...DEFAULT_HNSW_TUNING, exactSearchThreshold: 0 });
          const points = vectors.map((vector, id) => ({ id, vector, payload: {} }));
          small.upsert(points);
          large.upsert(points);
          large.indexPending();
          // The small one scans the vectors it keeps, the large one reads them from the graph.
          for (const [c, hits] of [
            [small, small.query(query, points.length)],
            [large, large.query(query, points.length, () => true)],
          ] as const) {
            const want = fullSums(c, query, distance);
            expect(hits).toHaveLength(points.length);
            for (const h of hits) expect(Object.is(h.score, want.get(h.id as number))).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('still scores a stored vector with a non-finite component as NaN when the query is mostly zeros', () => {
    const c = HnswCollection.create('t', 8, 'dot', DEFAULT_HNSW_TUNING);
    // 1e39 overflows float32 to Infinity; 0 x Infinity is NaN in the full sum.
    c.upsert([
      { id: 1, vector: Float32Array.from([1e39, 0, 0, 0, 0, 0, 0, 1]), payload: {} },
      { id: 2, vector: [1, 2, 0, 0, 0, 0, 0, 0], payload: {} },
    ]);
    const scores = new Map(c.query([0, 1, 0, 0, 0, 0, 0, 0], 2).map((h) => [h.id, h.score]));
    expect(scores.get(2)).toBe(2);
    expect(scores.get(1)).toBeNaN();
  });

  it("hands out payload copies: changing a hit's payload changes neither the store nor later hits", () => {
    const c = HnswCollection.create('t', 2, 'cosine', DEFAULT_HNSW_TUNING);
    const payload = JSON.parse('{"title":"a","tags":["x",{"deep":[1,2]}],"n":null,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    c.upsert([{ id: 1, vector: [1, 0], payload }]);
    const [first] = c.query([1, 0], 1);
    expect(first.payload).toEqual(payload);
    // An own "__proto__" key stays a property; it never becomes the copy's prototype.
    expect(Object.getPrototypeOf(first.payload)).toBe(Object.prototype);
    expect(Object.keys(first.payload!)).toEqual(['title', 'tags', 'n', '__proto__']);
    expect((first.payload as Record<string, unknown>).polluted).toBeUndefined();
    (first.payload!.tags as unknown[]).push('y');
    ((first.payload!.tags as Array<Record<string, number[]>>)[1].deep as number[]).push(3);
    first.payload!.title = 'changed';
    const [again] = c.query([1, 0], 1);
    expect(again.payload).toEqual({ title: 'a', tags: ['x', { deep: [1, 2] }], n: null, ['__proto__']: { polluted: true } });
    expect(JSON.stringify(again.payload)).toBe(JSON.stringify(payload));
  });
});
