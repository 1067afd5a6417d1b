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
