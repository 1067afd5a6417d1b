import { validateFlowDocument } from '@flowplane/flow/ir';
import { decideSeed } from './flow-seed-decision';
import { I18N_FLOW_TEMPLATES, templateHashOf, TRANSLATE_ON_CHANGE_GROUP, TRANSLATE_SWEEP_GROUP } from './translation-flow-templates';

const [onChange, sweep] = I18N_FLOW_TEMPLATES;

describe('translation flow templates', () => {
  it('are valid flow documents on their own topics with fixed consumer groups', () => {
    for (const t of I18N_FLOW_TEMPLATES) expect(validateFlowDocument(t.document).errors).toEqual([]);
    expect(onChange.document.nodes[0]).toMatchObject({ action_ref: 'svc/event-source', config: { eventName: 'i18n.keys_changed', groupID: TRANSLATE_ON_CHANGE_GROUP } });
    expect(onChange.document.nodes[1]).toMatchObject({ action_ref: 'i18n/fill-translations', config: { mode: 'missing_and_stale', review: true } });
    expect(sweep.document.nodes[0]).toMatchObject({ config: { eventName: 'i18n.translate.sweep', groupID: TRANSLATE_SWEEP_GROUP } });
    expect(sweep.document.nodes[1]).toMatchObject({ config: { all_keys: true, mode: 'missing_and_stale', limit: 200, review: true } });
  });
});

describe('publishing a template as a flow (rule 9)', () => {
  const seeded = () => {
    const d = decideSeed(onChange.document, undefined);
    if (d.action !== 'create') throw new Error('expected create');
    return d.document;
  };

  it('creates the flow when there is none, recording the template hash and schemaVersion 1', () => {
    const d = decideSeed(onChange.document, { flowId: onChange.flowId, found: false, published: false });
    expect(d).toMatchObject({ action: 'create', templateHash: templateHashOf(onChange.document) });
    expect(d.action === 'create' && d.document.meta).toMatchObject({ templateHash: templateHashOf(onChange.document), schemaVersion: 1, templateId: 'i18n/translate-on-change' });
  });

  it('leaves a flow seeded from the same template as it is (idempotent)', () => {
    expect(decideSeed(onChange.document, { flowId: onChange.flowId, found: true, published: true, document: seeded() })).toMatchObject({ action: 'keep', reason: 'up to date' });
  });

  it('re-publishes when the template changed and nobody edited the flow, one schemaVersion up', () => {
    const stored = { ...seeded(), meta: { ...seeded().meta, schemaVersion: 4 } };
    const changed = { ...onChange.document, nodes: onChange.document.nodes.map((n) => (n.id === 'fill' ? { ...n, config: { ...n.config, limit: 100 } } : n)) };
    const d = decideSeed(changed, { flowId: onChange.flowId, found: true, published: true, document: stored });
    expect(d.action).toBe('upgrade');
    expect(d.action === 'upgrade' && d.document.meta).toMatchObject({ schemaVersion: 5, templateHash: templateHashOf(changed) });
  });

  it('never replaces a flow an operator edited, even when the template changed', () => {
    const edited = { ...seeded(), nodes: seeded().nodes.map((n) => (n.id === 'fill' ? { ...n, config: { mode: 'missing', review: false } } : n)) };
    const changed = { ...onChange.document, description: 'a new revision' };
    expect(decideSeed(changed, { flowId: onChange.flowId, found: true, published: true, document: edited })).toMatchObject({ action: 'keep', reason: 'edited by an operator since it was seeded' });
    // A flow by that id that was never seeded from a template is not ours either.
    expect(decideSeed(onChange.document, { flowId: onChange.flowId, found: true, published: true, document: onChange.document })).toMatchObject({ action: 'keep', reason: 'edited by an operator since it was seeded' });
  });

  it("hands an unpublished flow to flow-runtime's seed (which finishes a half-done first seed and leaves an operator's unpublish alone)", () => {
    expect(decideSeed(onChange.document, { flowId: onChange.flowId, found: true, published: false })).toMatchObject({ action: 'create' });
  });
});
