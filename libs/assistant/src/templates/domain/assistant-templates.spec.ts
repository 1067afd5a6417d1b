import { validateFlowDocument } from '@flowplane/flow/ir';
import { ASSISTANT_TEMPLATES, capabilitiesOf, REWRITE_QUERY_KEY, templateDocument, TRUST_SAFETY_TO } from './assistant-templates';

const nodesOf = (name: string) => templateDocument(name)!.nodes;
const edgesOf = (name: string) => templateDocument(name)!.edges;
const byRef = (name: string, ref: string) => nodesOf(name).filter((n) => n.action_ref === ref);

describe('assistant template catalog', () => {
  it('ships all eleven as valid documents with schemaVersion, a position per node, tier and requires', () => {
    expect(ASSISTANT_TEMPLATES.map((t) => t.name)).toEqual(['echo', 'minimal', 'default', 'default-stream', 'production', 'multi-guard', 'rag', 'rag-clean', 'rag-stream', 'qa-only', 'rag-rewrite']);
    for (const t of ASSISTANT_TEMPLATES) {
      const d = t.document!;
      expect(validateFlowDocument(d).errors).toEqual([]);
      expect(d.meta?.schemaVersion).toBeGreaterThanOrEqual(2);
      const positions = d.meta!.positions!;
      expect(Object.keys(positions).sort()).toEqual(d.nodes.map((n) => n.id).sort());
      // Left to right: start leftmost, the ends rightmost.
      expect(positions['start'].x).toBe(0);
      expect(positions['end'].x).toBe(Math.max(...Object.values(positions).map((p) => p.x)));
      expect(t.title && t.description && t.tier).toBeTruthy();
      expect(t.recommended).toBe(t.name === 'default');
      if (t.name.startsWith('rag') || t.name === 'qa-only') expect(t.requires.join(' ')).toContain('svc_docs');
    }
    expect(ASSISTANT_TEMPLATES.find((t) => t.name === 'production')!.requires).toContain('SMTP_URL or the dev outbox');
  });

  it('routes meta.intent == handoff to the handoff node wherever the table has a handoff (rule 4)', () => {
    for (const t of ASSISTANT_TEMPLATES) {
      const handoff = edgesOf(t.name).find((e) => e.from === 'start' && e.to === 'handoff');
      const expected = ['default', 'default-stream', 'production', 'rag', 'rag-clean', 'rag-stream', 'rag-rewrite'].includes(t.name);
      expect(handoff?.condition).toBe(expected ? "meta.intent == 'handoff'" : undefined);
    }
  });

  it('production: the detector sits between the model and the output guard, Escalate leads to handoff, blocks mail trust and safety on an ephemeral edge', () => {
    const edges = edgesOf('production');
    expect(edges).toEqual(expect.arrayContaining([
      expect.objectContaining({ from: 'chat', to: 'escalation', port: 'Reply' }),
      expect.objectContaining({ from: 'escalation', to: 'output_guard', port: 'Reply' }),
      expect.objectContaining({ from: 'escalation', to: 'handoff', port: 'Escalate' }),
      expect.objectContaining({ from: 'output_guard', to: 'trust_safety_mail', port: 'Block', delivery_mode: 'ephemeral' }),
      expect.objectContaining({ from: 'output_guard', to: 'refused', port: 'Block' }),
    ]));
    expect(byRef('production', 'svc/escalation-detect')).toHaveLength(1);
    expect(byRef('production', 'svc/email-send')[0].config).toMatchObject({ to: TRUST_SAFETY_TO });
    expect(TRUST_SAFETY_TO).toBe('$setting:assistant/trust_safety_to || $setting:site/support_email || support@localhost');
  });

  it('multi-guard: two guards in series on each side; the first of each pair fails open, the second closed', () => {
    const guards = byRef('multi-guard', 'svc/guard').map((n) => [n.id, n.config?.role, n.config?.onError]);
    expect(guards).toEqual([
      ['input_guard_1', 'input', 'open'],
      ['input_guard_2', 'input', 'closed'],
      ['output_guard_1', 'output', 'open'],
      ['output_guard_2', 'output', 'closed'],
    ]);
    expect(edgesOf('multi-guard').filter((e) => e.port === 'Allow').map((e) => `${e.from}>${e.to}`)).toEqual(['input_guard_1>input_guard_2', 'input_guard_2>chat', 'output_guard_1>output_guard_2', 'output_guard_2>end']);
  });

  it('retrieval family: citations, streaming, single turn and the rewrite query field', () => {
    expect(byRef('rag', 'svc/assistant-rag-context')[0].config).toMatchObject({ index: 'svc_docs', topK: 4, citations: true });
    expect(byRef('rag-clean', 'svc/assistant-rag-context')[0].config).toMatchObject({ citations: false });
    expect(byRef('rag-stream', 'svc/llm-chat')[0].config).toMatchObject({ stream: true });
    expect(byRef('qa-only', 'svc/chat-window')[0].config).toMatchObject({ turns: 1 });
    expect(edgesOf('qa-only').find((e) => e.from === 'input_guard' && e.port === 'Allow')?.to).toBe('single_turn');
    const [rewrite, chat] = byRef('rag-rewrite', 'svc/llm-chat');
    expect(rewrite.config).toMatchObject({ outputKey: REWRITE_QUERY_KEY });
    expect(chat.config?.outputKey).toBeUndefined();
    expect(byRef('rag-rewrite', 'svc/assistant-rag-context')[0].config).toMatchObject({ queryKey: REWRITE_QUERY_KEY });
    expect(edgesOf('rag-rewrite').filter((e) => e.port === 'Allow' && e.from === 'input_guard').map((e) => e.to)).toEqual(['rewrite']);
    expect(edgesOf('rag-rewrite').filter((e) => e.from === 'rewrite').map((e) => `${e.port}>${e.to}`)).toEqual(['Reply>retrieve', 'Error>chat_failed']);
    expect(edgesOf('rag').filter((e) => e.from === 'retrieve').map((e) => `${e.port}>${e.to}`)).toEqual(['out>chat', 'Error>chat']);
  });
});

describe('capabilities of a stored flow', () => {
  const chat = (stream: unknown) => ({ nodes: [{ id: 'chat', name: 'Chat', kind: 'action' as const, action_ref: 'svc/llm-chat', config: { stream } }] });

  it('reports streaming as the engine reads stream, also for a version stored with a quoted "true"', () => {
    expect(capabilitiesOf(chat(true)).streaming).toBe(true);
    expect(capabilitiesOf(chat('true')).streaming).toBe(true);
    expect(capabilitiesOf(chat('false')).streaming).toBe(false);
    expect(capabilitiesOf(chat(false)).streaming).toBe(false);
  });
});
