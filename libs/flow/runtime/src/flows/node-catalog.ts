import type { NodeManifest } from '@flowplane/flow/engine';

/** What publishing and version checks need to know about registered nodes. */
export interface NodeCatalog {
  /** Whether an action_ref exists. */
  has(actionRef: string): boolean;
  /** The registered node, for its settings schema. */
  get(actionRef: string): { readonly manifest: NodeManifest } | undefined;
}

/** Nest token of the NodeCatalog (the node registry once nodes register). */
export const NODE_CATALOG = Symbol('NODE_CATALOG');
