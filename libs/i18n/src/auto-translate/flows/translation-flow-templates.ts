import { Topics } from '@flowplane/contracts';
import { canonicalHash, type FlowDocument } from '@flowplane/flow/ir';
import { I18N_FILL_TRANSLATIONS_NODE } from '../../nodes/i18n-nodes';

/** Template ids (flow-runtime's registry, source `i18n`). */
export const TRANSLATE_ON_CHANGE_TEMPLATE = 'i18n/translate-on-change';
export const TRANSLATE_SWEEP_TEMPLATE = 'i18n/translate-sweep';

/** Ids of the flows published from them at start-up. */
export const TRANSLATE_ON_CHANGE_FLOW = 'i18n-translate-on-change';
export const TRANSLATE_SWEEP_FLOW = 'i18n-translate-sweep';

/**
 * Fixed consumer groups (rule 9): every replica consumes each flow's topic in the same group, so an
 * event is translated once whatever the replica count.
 */
export const TRANSLATE_ON_CHANGE_GROUP = 'i18n-translate-on-change';
export const TRANSLATE_SWEEP_GROUP = 'i18n-translate-sweep';

/** Stable id of the scheduler entry that publishes `i18n.translate.sweep` (UTC). */
export const TRANSLATE_SWEEP_SCHEDULE = 'i18n-translate-sweep';

/** Keys the sweep works through per run (localization.md, Limits: fill node 200 keys per run). */
export const SWEEP_LIMIT = 200;

/** One template as flow-runtime's registry takes it (`PUT /internal/templates/providers/i18n`). */
export interface I18nFlowTemplate {
  id: string;
  /** The flow published from it. */
  flowId: string;
  name: string;
  description: string;
  source: 'i18n';
  tags: string[];
  document: FlowDocument;
}

function eventFillDocument(o: { name: string; description: string; topic: string; groupID: string; fill: Record<string, unknown>; templateId: string }): FlowDocument {
  return {
    name: o.name,
    description: o.description,
    nodes: [
      { id: 'event', name: o.topic, kind: 'start', action_ref: 'svc/event-source', config: { eventName: o.topic, groupID: o.groupID } },
      { id: 'fill', name: 'Fill translations', kind: 'action', action_ref: I18N_FILL_TRANSLATIONS_NODE, config: o.fill },
    ],
    edges: [{ id: 'event-out-fill', from: 'event', to: 'fill' }],
    meta: { templateId: o.templateId, positions: { event: { x: 0, y: 0 }, fill: { x: 280, y: 0 } } },
  };
}

/** The two flows published at start-up (localization.md, "Flow templates published at startup"). */
export const I18N_FLOW_TEMPLATES: readonly I18nFlowTemplate[] = [
  {
    id: TRANSLATE_ON_CHANGE_TEMPLATE,
    flowId: TRANSLATE_ON_CHANGE_FLOW,
    name: 'Translate on change',
    description:
      'On each i18n.keys_changed (keys added, source text or translator note changed), machine-translates the keys of the event into every active locale: missing text, and machine text gone stale; review on. Never overwrites human text.',
    source: 'i18n',
    tags: ['i18n', 'translation', 'event'],
    document: eventFillDocument({
      name: 'Translate on change',
      description: 'Translates the keys of each i18n.keys_changed event (missing and stale machine text, review on).',
      topic: Topics.I18nKeysChanged,
      groupID: TRANSLATE_ON_CHANGE_GROUP,
      fill: { mode: 'missing_and_stale', review: true },
      templateId: TRANSLATE_ON_CHANGE_TEMPLATE,
    }),
  },
  {
    id: TRANSLATE_SWEEP_TEMPLATE,
    flowId: TRANSLATE_SWEEP_FLOW,
    name: 'Translation sweep',
    description: `On each i18n.translate.sweep (the scheduler entry ${TRANSLATE_SWEEP_SCHEDULE}), fills up to ${SWEEP_LIMIT} keys of the whole catalog: missing text and stale machine text, review on. Unfinished work continues on the next sweep.`,
    source: 'i18n',
    tags: ['i18n', 'translation', 'schedule'],
    document: eventFillDocument({
      name: 'Translation sweep',
      description: `Fills up to ${SWEEP_LIMIT} keys of the whole catalog per sweep (missing and stale machine text, review on).`,
      topic: Topics.I18nTranslateSweep,
      groupID: TRANSLATE_SWEEP_GROUP,
      fill: { all_keys: true, mode: 'missing_and_stale', limit: SWEEP_LIMIT, review: true },
      templateId: TRANSLATE_SWEEP_TEMPLATE,
    }),
  },
];

/** Meta fields the seeder itself writes: they are not part of what the template says. */
const SEEDER_META = ['templateHash', 'schemaVersion'];

/**
 * Content hash of a flow document as a template revision: the canonical hash of the document
 * without the seeder's bookkeeping (`meta.templateHash`, `meta.schemaVersion`). Equal for a
 * template and the flow seeded from it as long as nobody edits the flow.
 */
export function templateHashOf(doc: FlowDocument): string {
  const meta = Object.fromEntries(Object.entries(doc.meta ?? {}).filter(([k]) => !SEEDER_META.includes(k)));
  return canonicalHash({ name: doc.name, description: doc.description, nodes: doc.nodes, edges: doc.edges, meta });
}
