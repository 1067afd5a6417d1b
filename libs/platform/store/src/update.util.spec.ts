import { update as mingoUpdate } from 'mingo';
import { applyUpdate, prepareUpdate } from './update.util';
import type { Update } from './store.port';

/** What mingo (the general updater) makes of the same update, on a copy. */
function viaMingo(doc: Record<string, unknown>, update: Update): { doc: Record<string, unknown>; changed: boolean } {
  const copy = structuredClone(doc);
  const changed = mingoUpdate(copy, update as Parameters<typeof mingoUpdate>[1], undefined, undefined, { cloneMode: 'copy' });
  return { doc: copy, changed: changed.length > 0 };
}

describe('applyUpdate: top-level $set, $push and $addToSet without mingo', () => {
  const docs: Array<Record<string, unknown>> = [
    { _id: 'a' },
    { _id: 'b', tags: ['x'], runIds: [], n: 1, messages: [{ role: 'user', content: 'hi' }] },
    { _id: 'c', tags: ['x', 'y'], runIds: ['r1'], n: 2, nested: { k: 1 } },
  ];
  const updates: Update[] = [
    { $set: { n: 1 } },
    { $set: { n: 3, nested: { k: 2 } } },
    { $push: { messages: { role: 'assistant', content: 'hello', sources: [] } } },
    { $push: { tags: 'x' } },
    { $addToSet: { runIds: 'r1' } },
    { $addToSet: { runIds: 'r2', tags: 'y' } },
    { $addToSet: { messages: { role: 'user', content: 'hi' } } },
    { $set: { n: 2, at: 'later' }, $push: { messages: { role: 'user', content: 'again' } }, $addToSet: { runIds: 'r1' } },
  ];
  for (const [i, doc] of docs.entries()) {
    for (const [j, update] of updates.entries()) {
      it(`agrees with mingo: document ${i}, update ${j}`, () => {
        const expected = viaMingo(doc, update);
        const ours = structuredClone(doc);
        expect(applyUpdate(ours, prepareUpdate(update), false)).toBe(expected.changed);
        expect(ours).toEqual(expected.doc);
      });
    }
  }

  it('copies the operand, so changing it later does not reach the stored document', () => {
    const value = { role: 'user', content: 'hi' };
    const prepared = prepareUpdate({ $push: { messages: value } });
    const doc: Record<string, unknown> = { _id: 'd' };
    applyUpdate(doc, prepared, false);
    (prepared.modifier.$push.messages as { content: string }).content = 'changed';
    expect(doc.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('still refuses a push onto a field that is not an array, and hands $each and dotted paths to mingo', () => {
    expect(() => applyUpdate({ _id: 'e', tags: 'x' }, prepareUpdate({ $push: { tags: 'y' } }), false)).toThrow(/array/);
    const doc: Record<string, unknown> = { _id: 'f', tags: ['a'], sub: { list: [] } };
    applyUpdate(doc, prepareUpdate({ $push: { tags: { $each: ['b', 'c'] } } }), false);
    applyUpdate(doc, prepareUpdate({ $addToSet: { 'sub.list': 1 } }), false);
    expect(doc).toEqual({ _id: 'f', tags: ['a', 'b', 'c'], sub: { list: [1] } });
  });
});
