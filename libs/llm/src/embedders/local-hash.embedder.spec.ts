import fc from 'fast-check';
import { cosine } from './embedder';
import { EmbedderRegistry } from './embedder-registry';
import { LocalHashEmbedder } from './local-hash.embedder';

const word = fc.stringMatching(/^[a-z]{3,9}$/);
const words = (min: number, max: number) => fc.uniqueArray(word, { minLength: min, maxLength: max });
const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('local-hash embedder', () => {
  const embedder = new LocalHashEmbedder();

  it('has the configured dimension (default 768)', async () => {
    expect(embedder.dimension).toBe(768);
    expect((await embedder.embed(['hello'])).vectors[0]).toHaveLength(768);
    expect(new EmbedderRegistry().create({ provider: 'local-hash', dimension: 64 }).dimension).toBe(64);
    expect(() => new LocalHashEmbedder(3)).toThrow(RangeError);
  });

  it('is deterministic, across instances too', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(new LocalHashEmbedder().embedOne(text)).toEqual(embedder.embedOne(text));
      }),
    );
  });

  it('is L2-normalised for every text, the empty one included', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        expect(norm(embedder.embedOne(text))).toBeCloseTo(1, 9);
      }),
    );
  });

  it('puts texts that share words nearer than texts that do not', () => {
    fc.assert(
      fc.property(words(3, 12), words(1, 6), words(3, 12), (a, b, c) => {
        fc.pre(c.every((w) => !a.includes(w) && !b.includes(w)));
        const base = embedder.embedOne(a.join(' '));
        const overlapping = embedder.embedOne([...a, ...b].join(' '));
        const unrelated = embedder.embedOne(c.join(' '));
        expect(cosine(base, overlapping)).toBeGreaterThan(cosine(base, unrelated));
      }),
      { numRuns: 200 },
    );
  });

  it('ignores case and puts inflections near each other', () => {
    const sim = (x: string, y: string) => cosine(embedder.embedOne(x), embedder.embedOne(y));
    expect(sim('Vector Search', 'vector search')).toBeCloseTo(1, 9);
    expect(sim('indexing documents', 'index documents')).toBeGreaterThan(sim('indexing documents', 'banana smoothie'));
  });
});
