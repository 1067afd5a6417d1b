import fc from 'fast-check';
import { sortDocuments } from './compare.util';
import type { Doc } from './document.util';
import { compileFilter, mingoMatcher, upsertSeed } from './filter.util';

const scalar = fc.oneof(
  fc.constantFrom('a', 'b', 'c'),
  fc.integer({ min: -2, max: 2 }),
  fc.boolean(),
  fc.constantFrom(new Date(0), new Date(1000)),
);
const leaf = fc.oneof(
  scalar,
  fc.constant(null),
  fc.array(fc.oneof(scalar, fc.constant(null)), { maxLength: 3 }),
);
const sub = fc.record({ c: leaf, d: leaf }, { requiredKeys: [] });
// Inside arrays of sub-documents the leaves stay scalar: there mingo stops expanding leaf arrays
// once one element holds a non-array, which MongoDB does not (covered by a hand-written case below).
const flatSub = fc.record(
  { c: fc.oneof(scalar, fc.constant(null)), d: fc.oneof(scalar, fc.constant(null)) },
  { requiredKeys: [] },
);
const doc = fc.record(
  {
    a: leaf,
    b: fc.oneof(sub, fc.array(flatSub, { maxLength: 3 }), scalar),
  },
  { requiredKeys: [] },
);
const path = fc.constantFrom('a', 'b.c', 'b.d', 'a.0', 'b.0.c');
const condition = fc.oneof(
  scalar,
  fc.constant(null),
  fc.record({ $eq: fc.oneof(scalar, fc.constant(null)) }),
  fc.record({ $ne: fc.oneof(scalar, fc.constant(null)) }),
  fc.record({ $in: fc.array(scalar, { maxLength: 3 }) }),
  fc.record({ $nin: fc.array(scalar, { maxLength: 3 }) }),
  fc.record({ $gt: scalar }),
  fc.record({ $gte: scalar, $lt: scalar }),
  fc.record({ $lte: scalar }),
  fc.record({ $exists: fc.boolean() }),
);
const filter = fc.dictionary(path, condition, { maxKeys: 2 });

describe('compileFilter', () => {
  it('agrees with mingo (the MongoDB query engine) on generated documents and filters', () => {
    fc.assert(
      fc.property(doc, filter, (d, f) => {
        const withId = { _id: 'x', ...d } as Doc;
        expect(compileFilter(f)(withId)).toBe(mingoMatcher(f)(withId));
      }),
      { numRuns: 3000 },
    );
  });

  it('expands leaf arrays reached through an array of sub-documents, like MongoDB', () => {
    const d = { _id: 'x', b: [{ d: 'a' }, { d: [5, new Date(1000)] }] };
    expect(compileFilter({ 'b.d': { $gt: 1 } })(d)).toBe(true);
    expect(compileFilter({ 'b.d': new Date(1000) })(d)).toBe(true);
    expect(compileFilter({ 'b.d': { $in: ['z', 5] } })(d)).toBe(true);
    expect(compileFilter({ 'b.d': { $lt: 5 } })(d)).toBe(false);
  });

  it('falls back to the full query language for other shapes', () => {
    const m = compileFilter({ $or: [{ a: { $regex: '^x' } }, { 'b.c': { $elemMatch: { $gt: 1 } } }] });
    expect(m({ _id: '1', a: 'xyz' })).toBe(true);
    expect(m({ _id: '2', b: { c: [0, 2] } })).toBe(true);
    expect(m({ _id: '3', a: 'y', b: { c: [0] } })).toBe(false);
  });
});

describe('upsertSeed', () => {
  it('takes the equality conditions of a filter, including dotted paths and $and', () => {
    expect(
      upsertSeed({ a: 1, 'b.c': 'x', d: { $gt: 1 }, e: { $eq: true }, $and: [{ f: 2 }], $or: [{ g: 1 }] }),
    ).toEqual({
      a: 1,
      b: { c: 'x' },
      e: true,
      f: 2,
    });
  });
});

describe('sortDocuments', () => {
  it('orders across types like MongoDB and uses the smallest array element ascending, the largest descending', () => {
    const docs: Doc[] = [
      { _id: 'arr', v: [3, 9] },
      { _id: 'num', v: 5 },
      { _id: 'missing' },
      { _id: 'null', v: null },
      { _id: 'str', v: 's' },
      { _id: 'obj', v: { x: 1 } },
      { _id: 'bool', v: true },
      { _id: 'date', v: new Date(1) },
      { _id: 'empty', v: [] },
    ];
    expect(sortDocuments([...docs], { v: 1 }).map((d) => d._id)).toEqual([
      'empty',
      'missing',
      'null',
      'arr',
      'num',
      'str',
      'obj',
      'bool',
      'date',
    ]);
    expect(sortDocuments([...docs], { v: -1 }).map((d) => d._id)).toEqual([
      'date',
      'bool',
      'obj',
      'str',
      'arr',
      'num',
      'missing',
      'null',
      'empty',
    ]);
  });
});
