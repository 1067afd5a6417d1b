import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { publishFlow } from '../support/flows';
import { call, json, testEnv, token, until } from '../support/http';

const refunds = {
  id: 'refund-policy',
  title: 'Refund policy',
  url: 'https://help.example.com/refunds',
  format: 'markdown',
  text: [
    '# Refunds',
    '',
    'Refunds are paid back to the original card within 14 days of the return arriving at our warehouse.',
    '',
    '## Exceptions',
    '',
    'Gift cards and opened software cannot be refunded.',
    '',
    ...Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of the terms repeats the small print about returns, parcels, labels and couriers in many words.`),
  ].join('\n'),
};
const shipping = {
  id: 'shipping',
  title: 'Shipping',
  format: 'html',
  text: '<h1>Shipping</h1><script>steal()</script><p>Parcels to Norway take five working days by road.</p><style>p{}</style>',
};

const flowOf = (rag: Record<string, unknown>, withModel: boolean) => ({
  name: 'Knowledge test',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'rag', name: 'Retrieve', kind: 'action', action_ref: 'svc/assistant-rag-context', config: rag },
    ...(withModel ? [{ id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { providerID: 'local' } }] : []),
    { id: 'end', name: 'End', kind: 'end' },
    { id: 'failed', name: 'Failed', kind: 'end' },
  ],
  edges: [
    ...(withModel
      ? [
          { id: 'e1', from: 'rag', to: 'chat', port: 'out' },
          { id: 'e2', from: 'chat', to: 'end', port: 'Reply' },
        ]
      : [{ id: 'e1', from: 'rag', to: 'end', port: 'out' }]),
    { id: 'e0', from: 'start', to: 'rag' },
    { id: 'e3', from: 'rag', to: 'failed', port: 'Error' },
  ],
});

/** Knowledge ingest (chunk, embed through search, replace on re-ingest) and the svc/assistant-rag-context node. */
describe('assistant knowledge: ingest and retrieval', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;
  let searchAdmin: string;

  const ingest = (body: unknown) => call(`${api}/admin/assistant/ingest`, { method: 'POST', bearer: admin, ...json(body) });
  const points = async () => (await call(`${api}/admin/search/indexes/docs`, { bearer: searchAdmin })).body.points as number;
  const run = (flowId: string, input: unknown) => call(`${api}/flows/${flowId}/runs`, { method: 'POST', bearer: admin, ...json({ input }) });

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ SEARCH_EMBEDDING_DIM: '64' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    searchAdmin = await token('sam', ['admin:access', 'search:index:list']);
    await until(() => call(`${api}/flows/nodes`, { bearer: admin }), (r) => r.status === 200 && r.body.some((n: { id: string }) => n.id === 'svc/assistant-rag-context'), 15_000, 100);
  }, 60_000);
  afterAll(() => platform?.close());

  it('ingests documents into svc_docs, and ingesting them again keeps the same chunk count', async () => {
    const first = await ingest({ documents: [refunds, shipping] });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ index: 'svc_docs', removedChunks: 0, embeddedChunks: first.body.chunks, documents: [{ id: 'refund-policy', previousChunks: 0 }, { id: 'shipping', chunks: 1, previousChunks: 0 }] });
    const total = first.body.chunks as number;
    expect(first.body.documents[0].chunks).toBeGreaterThan(1);
    expect(await points()).toBe(total);

    const again = await ingest({ documents: [refunds, shipping], index: 'svc_docs' });
    expect(again.status).toBe(200);
    expect(again.body.chunks).toBe(total);
    expect(again.body.embeddedChunks).toBe(0);
    expect(await points()).toBe(total);

    const list = await call(`${api}/admin/assistant/knowledge`, { bearer: admin });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ chunks: total, documents: [{ id: 'refund-policy', index: 'svc_docs', title: 'Refund policy', url: refunds.url, format: 'markdown' }, { id: 'shipping', chunks: 1, format: 'html' }] });
  });

  it('replaces a shorter version without leaving orphans, and deletes a document with its chunks', async () => {
    const before = await points();
    const short = await ingest({ documents: [{ ...refunds, text: '# Refunds\n\nRefunds take 14 days.' }] });
    expect(short.status).toBe(200);
    expect(short.body.documents[0]).toMatchObject({ chunks: 1 });
    expect(short.body.embeddedChunks).toBe(1);
    expect(short.body.removedChunks).toBe(short.body.documents[0].previousChunks - 1);
    expect(await points()).toBe(before - short.body.removedChunks);

    const del = await call(`${api}/admin/assistant/knowledge/refund-policy`, { method: 'DELETE', bearer: admin });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ index: 'svc_docs', id: 'refund-policy', removedChunks: 1 });
    expect(await points()).toBe(before - short.body.removedChunks - 1);
    expect((await call(`${api}/admin/assistant/knowledge`, { bearer: admin })).body.documents.map((d: { id: string }) => d.id)).toEqual(['shipping']);
    const again = await call(`${api}/admin/assistant/knowledge/refund-policy`, { method: 'DELETE', bearer: admin });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ statusCode: 404, code: 'KNOWLEDGE_NOT_FOUND' });
    expect((await ingest({ documents: [refunds] })).status).toBe(200);
  });

  it('refuses documents with no text (naming them), bad formats, non-admins and a 20 MB upload', async () => {
    const empty = await ingest({ documents: [{ id: 'blank', title: 'Blank', text: '   ' }, { id: 'scripts-only', title: 'S', format: 'html', text: '<script>x()</script>' }, { id: 'fine', title: 'Fine', text: 'words' }] });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ statusCode: 400, code: 'KNOWLEDGE_INVALID', requestId: expect.any(String) });
    expect(empty.body.message).toContain('no text in "blank", "scripts-only"');
    expect(empty.body.message).not.toContain('fine');
    expect((await ingest({ documents: [{ id: 'x', title: 'X', text: 'a', format: 'pdf' }] })).body.message).toContain('format must be one of markdown, html, text');
    const user = await token('bob');
    expect((await call(`${api}/admin/assistant/ingest`, { method: 'POST', bearer: user, ...json({ documents: [shipping] }) })).status).toBe(403);
    const huge = await ingest({ documents: [{ id: 'huge', title: 'Huge', text: 'x'.repeat(20 * 1024 * 1024) }] });
    expect(huge.status).toBe(413);
    expect((await call(`${api}/admin/assistant/knowledge`, { bearer: admin })).body.documents.map((d: { id: string }) => d.id)).not.toContain('huge');
  });

  it('retrieval prepends numbered excerpts and writes sources; the local model answers with them', async () => {
    await publishFlow(api, admin, 'kb-context', flowOf({ index: 'svc_docs', topK: 2, minScore: -1 }, false));
    const ctx = await run('kb-context', { messages: [{ role: 'user', content: 'How long until refunds are paid back to my card?' }] });
    expect(ctx.status).toBe(200);
    expect(ctx.body.status).toBe('completed');
    const out = ctx.body.output;
    expect(out.index).toBe('svc_docs');
    expect(out.sources).toHaveLength(2);
    expect(out.sources[0]).toEqual({ n: 1, title: 'Refund policy', url: refunds.url, score: expect.any(Number) });
    expect(out.messages[0].role).toBe('system');
    expect(out.messages[0].content).toMatch(/Cite the excerpts/);
    expect(out.messages[0].content).toContain('[1] Refund policy > Refunds: Refunds are paid back to the original card within 14 days');
    expect(out.messages[1]).toEqual({ role: 'user', content: 'How long until refunds are paid back to my card?' });

    await publishFlow(api, admin, 'kb-clean', flowOf({ citations: false, queryKey: 'search' }, false));
    const clean = await run('kb-clean', { search: 'parcels to Norway', messages: [{ role: 'user', content: 'unrelated words' }] });
    expect(clean.body.output.sources[0]).toMatchObject({ n: 1, title: 'Shipping' });
    expect(clean.body.output.sources[0].url).toBeUndefined();
    expect(clean.body.output.messages[0].content).toMatch(/Do not write \[N\] citation markers/);
    expect(clean.body.output.messages[0].content).not.toContain('steal()');

    await publishFlow(api, admin, 'kb-chat', flowOf({}, true));
    const chat = await run('kb-chat', { messages: [{ role: 'user', content: 'How long until refunds are paid back to my card?' }] });
    expect(chat.status).toBe(200);
    expect(chat.body).toMatchObject({ status: 'completed', output: { sources: expect.arrayContaining([expect.objectContaining({ n: 1, title: 'Refund policy', url: refunds.url })]) } });
    // The offline model quotes the ingested sentence that answers the question and cites it.
    expect(chat.body.output.content).toContain('within 14 days');
    expect(chat.body.output.content).toContain('[1]');
  });

  it('a missing index goes to Error naming it, with the messages and a warning for the chat', async () => {
    await publishFlow(api, admin, 'kb-missing', flowOf({ index: 'svc_nowhere' }, false));
    const res = await run('kb-missing', { messages: [{ role: 'user', content: 'Anything?' }], warnings: ['earlier'] });
    expect(res.status).toBe(200);
    expect(res.body.output).toMatchObject({
      code: 'INDEX_NOT_FOUND',
      index: 'svc_nowhere',
      error: expect.stringContaining('svc_nowhere'),
      sources: [],
      messages: [{ role: 'user', content: 'Anything?' }],
      warnings: ['earlier', expect.stringContaining('svc_nowhere does not exist')],
    });

    // The chat wiring: Error goes on to the model, which answers without excerpts; the warning travels with the reply.
    await publishFlow(api, admin, 'kb-missing-chat', {
      ...flowOf({ index: 'svc_nowhere' }, true),
      edges: [
        { id: 'e0', from: 'start', to: 'rag' },
        { id: 'e1', from: 'rag', to: 'chat', port: 'out' },
        { id: 'e3', from: 'rag', to: 'chat', port: 'Error' },
        { id: 'e2', from: 'chat', to: 'end', port: 'Reply' },
      ],
    });
    const chat = await run('kb-missing-chat', { messages: [{ role: 'user', content: 'Anything?' }] });
    expect(chat.body).toMatchObject({ status: 'completed', output: { content: expect.any(String), sources: [], warnings: [expect.stringContaining('svc_nowhere does not exist')] } });

    const noQuestion = await run('kb-missing', { messages: [] });
    expect(noQuestion.body.output).toMatchObject({ code: 'QUERY_MISSING' });
  });
});
