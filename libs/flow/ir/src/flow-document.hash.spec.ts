import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { FlowDocument } from './flow-document';
import { canonicalHash, canonicalJson } from './flow-document.hash';
import { parseFlowDocumentText } from './flow-document.parser';

/** The same value with every object's keys in reverse order. */
function reverseKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reverseKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).reverse()) Object.defineProperty(out, k, { value: reverseKeys((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

const doc: FlowDocument = {
  id: 'f',
  name: 'Flow',
  nodes: [
    { id: 's', kind: 'start', config: { b: 1, a: [{ y: 2, x: 1 }] } },
    { id: 'e', kind: 'end' },
  ],
  edges: [{ id: 'e1', from: 's', to: 'e', delivery_mode: 'direct' }],
  meta: { positions: { s: { x: 0, y: 0 }, e: { x: 1, y: 0 } } },
};

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 'é' }, 2], 'A ': null })).toBe('{"A ":null,"a":[{"c":"é","d":1},2],"b":1}');
  });

  it('sorts by UTF-16 code units (RFC 8785) and escapes like JSON', () => {
    expect(canonicalJson({ '\u20ac': 1, '\r': 2, '\ud83d\ude00': 3, '1': 4, a: 'line\nbreak "q"' })).toBe('{"\\r":2,"1":4,"a":"line\\nbreak \\"q\\"","€":1,"😀":3}');
  });

  it('treats non-JSON values as JSON does', () => {
    expect(canonicalJson({ a: undefined, b: [undefined, NaN], c: -0, d: new Date(0) })).toBe('{"b":[null,null],"c":0,"d":"1970-01-01T00:00:00.000Z"}');
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });

  it('keeps a __proto__ key as data', () => {
    expect(canonicalJson(JSON.parse('{"z": 1, "__proto__": {"b": 2, "a": 1}}'))).toBe('{"__proto__":{"a":1,"b":2},"z":1}');
  });
});

describe('canonicalHash', () => {
  it('is the hex sha256 of the canonical JSON', () => {
    const expected = createHash('sha256').update(canonicalJson(doc)).digest('hex');
    expect(canonicalHash(doc)).toBe(expected);
    expect(canonicalHash(doc)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is the same for the same document whatever the key order or text format', () => {
    const yaml = `
meta: {positions: {e: {y: 0, x: 1}, s: {x: 0, y: 0}}}
edges: [{delivery_mode: direct, to: e, from: s, id: e1}]
nodes:
  - {config: {a: [{x: 1, y: 2}], b: 1}, kind: start, id: s}
  - {kind: end, id: e}
name: Flow
id: f
`;
    expect(canonicalHash(parseFlowDocumentText(yaml))).toBe(canonicalHash(doc));
    expect(canonicalHash(reverseKeys(doc))).toBe(canonicalHash(doc));
    expect(canonicalHash(structuredClone(doc))).toBe(canonicalHash(doc));
  });

  it('changes when the content changes, including array order', () => {
    const renamed = { ...doc, name: 'Flow 2' };
    const reordered = { ...doc, nodes: [...doc.nodes].reverse() };
    const moved = structuredClone(doc);
    moved.meta!.positions!.s.x = 1;
    const hashes = new Set([doc, renamed, reordered, moved].map(canonicalHash));
    expect(hashes.size).toBe(4);
  });

  it('does not depend on key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalHash(reverseKeys(v))).toBe(canonicalHash(v));
        expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });

  it('tells different documents apart (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(canonicalJson(a) !== canonicalJson(b));
        expect(canonicalHash(a)).not.toBe(canonicalHash(b));
      }),
      { numRuns: 300 },
    );
  });
});
