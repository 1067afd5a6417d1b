import { NODE_KINDS, validateFlowDocument } from '@flowplane/flow/ir';
import { I18N_FILL_TRANSLATIONS_NODE, I18N_NODE_MANIFESTS, I18N_RESOLVE_LOCALE_NODE, I18N_TRANSLATE_NODE } from './i18n-nodes';

/**
 * The spec's node kinds (transform, transform, action) as a flow author meets them: the canvas kind
 * is one the flow document accepts, and the description says which nodes change nothing and which
 * writes (docs/adr/0051).
 */
describe('i18n node manifests', () => {
  const manifest = (id: string) => I18N_NODE_MANIFESTS.find((m) => m.id === id)!;

  it('the transforms and the fill node carry a canvas kind a flow document accepts', () => {
    for (const m of I18N_NODE_MANIFESTS) expect(NODE_KINDS).toContain(m.kind);
    const doc = {
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'resolve', kind: manifest(I18N_RESOLVE_LOCALE_NODE).kind, action_ref: I18N_RESOLVE_LOCALE_NODE },
        { id: 'translate', kind: manifest(I18N_TRANSLATE_NODE).kind, action_ref: I18N_TRANSLATE_NODE },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'resolve' },
        { id: 'e2', from: 'resolve', to: 'translate', port: 'Resolved' },
        { id: 'e3', from: 'translate', to: 'end', port: 'Translated' },
      ],
      meta: { positions: { start: { x: 0, y: 0 }, resolve: { x: 1, y: 0 }, translate: { x: 2, y: 0 }, end: { x: 3, y: 0 } } },
    };
    expect(validateFlowDocument(doc).errors).toEqual([]);
  });

  it('says in the description that translate and resolve-locale are transforms and fill-translations writes', () => {
    expect(manifest(I18N_TRANSLATE_NODE).description).toMatch(/^Transform \(no side effects\): /);
    expect(manifest(I18N_RESOLVE_LOCALE_NODE).description).toMatch(/^Transform \(no side effects\): /);
    expect(manifest(I18N_FILL_TRANSLATIONS_NODE).description).toMatch(/^Action \(writes translations\): /);
  });
});
