import { createMemoryStore } from '@flowplane/platform/store';
import { KnowledgeRepository, type KnowledgeRecord } from './knowledge.repository';

const record = (chunks: number): KnowledgeRecord => ({ docId: 'guides/refunds.md', index: 'svc_docs', title: 'Refunds', format: 'markdown', chunks, chars: 40, updatedAt: new Date() });

describe('KnowledgeRepository ids', () => {
  it('keeps no U+0000 in an id, and still finds, replaces and removes a record stored under the old id', async () => {
    const store = createMemoryStore();
    const repo = new KnowledgeRepository(store);
    const raw = store.collection(KnowledgeRepository.COLLECTION);
    // As an earlier version stored it.
    await raw.insertOne({ _id: 'svc_docs\u0000guides/refunds.md', ...record(1) });

    expect(await repo.find('svc_docs', 'guides/refunds.md')).toMatchObject({ chunks: 1 });
    await repo.save(record(3));
    const ids = (await raw.find({})).map((d) => d._id);
    expect(ids).toEqual(['svc_docs/guides/refunds.md']);
    expect(await repo.list('svc_docs')).toEqual([expect.objectContaining({ docId: 'guides/refunds.md', chunks: 3 })]);

    await raw.insertOne({ _id: 'svc_docs\u0000guides/refunds.md', ...record(1) });
    await repo.remove('svc_docs', 'guides/refunds.md');
    expect(await raw.find({})).toEqual([]);
  });
});
