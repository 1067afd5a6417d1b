import type { FlowDocument } from '@flowplane/flow/ir';
import { templateHashOf } from './translation-flow-templates';

/** A flow as flow-runtime describes it (`POST /internal/flows/documents`). */
export interface StoredFlowRef {
  flowId: string;
  found: boolean;
  published: boolean;
  versionId?: string;
  document?: FlowDocument;
}

/** What to do with one template's flow at start-up. */
export type SeedDecision =
  | { action: 'create' | 'upgrade'; document: FlowDocument; templateHash: string }
  | { action: 'keep'; reason: string; templateHash: string };

/**
 * Publishing by template id (rule 9), decided from what flow-runtime holds:
 * - no flow yet: create it from the template;
 * - the template hash recorded at the last seed equals the template's: up to date;
 * - the stored document no longer hashes to the recorded template hash: an operator edited the
 *   flow (or it was never ours): left alone;
 * - otherwise the template changed since the last seed and nobody touched the flow: upgrade it.
 *   The offered `meta.schemaVersion` is one above the stored one, which is what flow-runtime's
 *   seed route asks before it replaces a module-owned version (it also refuses to replace a
 *   version an operator saved, whatever we decide here).
 * A flow that is not published goes to flow-runtime's seed, which finishes a first seed that never
 * got to publish and leaves a flow an operator took off the air alone.
 */
export function decideSeed(template: FlowDocument, stored: StoredFlowRef | undefined): SeedDecision {
  const templateHash = templateHashOf(template);
  const stamp = (schemaVersion: number): FlowDocument => ({ ...template, meta: { ...template.meta, templateHash, schemaVersion } });
  if (!stored?.found) return { action: 'create', document: stamp(1), templateHash };
  // Off the air: flow-runtime's seed finishes a first seed that never got to publish, and leaves a
  // flow an operator unpublished as it is.
  if (!stored.published || !stored.document) return { action: 'create', document: stamp(1), templateHash };
  const meta = stored.document.meta ?? {};
  const recorded = typeof meta.templateHash === 'string' ? meta.templateHash : undefined;
  if (recorded === templateHash) return { action: 'keep', reason: 'up to date', templateHash };
  if (!recorded || templateHashOf(stored.document) !== recorded) return { action: 'keep', reason: 'edited by an operator since it was seeded', templateHash };
  const have = typeof meta.schemaVersion === 'number' ? meta.schemaVersion : 0;
  return { action: 'upgrade', document: stamp(have + 1), templateHash };
}
