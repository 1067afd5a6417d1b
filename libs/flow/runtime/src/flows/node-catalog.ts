/** What publishing needs to know about registered nodes: whether an action_ref exists. */
export interface NodeCatalog {
  has(actionRef: string): boolean;
}

/** Nest token of the NodeCatalog (the node registry once nodes register). */
export const NODE_CATALOG = Symbol('NODE_CATALOG');
