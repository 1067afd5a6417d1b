/**
 * The flow document (IR workflow), spec: flows-compile-search-hub.md "Flow document". Pure types:
 * the engine executes it, the runtime stores it as immutable versions, the compile pipeline converts it.
 */

/** Node kinds of the canvas. */
export const NODE_KINDS = ['start', 'end', 'action', 'event', 'gateway', 'condition', 'wait', 'parallel'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

/** How a packet travels along an edge. */
export const DELIVERY_MODES = ['direct', 'ephemeral', 'checkpoint', 'durable', 'stream'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

/** A JSON Schema object (draft 2020-12 subset used by ports, packets and settings). */
export type JsonSchema = Record<string, unknown>;

export interface FlowNode {
  /** Unique within the flow. */
  id: string;
  name?: string;
  /** One-line description for editors (the spec form's node `summary`). */
  description?: string;
  kind: NodeKind;
  /** Id of a registered node (for example `svc/template-render`). */
  action_ref?: string;
  /** Keyed by the node's settings schema; unknown keys are dropped with a warning. */
  config?: Record<string, unknown>;
}

export interface FlowEdge {
  id: string;
  from: string;
  to: string;
  /** Output port of `from` this edge leaves; absent means any port (select with a condition on `port`). */
  port?: string;
  /** Default `direct`. */
  delivery_mode?: DeliveryMode;
  /** Condition language expression; absent or `true` makes the edge a default. */
  condition?: string;
  /** Reference to a packet schema in `meta.packets`. */
  packet?: string;
}

export interface FlowMeta {
  positions?: Record<string, { x: number; y: number }>;
  packets?: Record<string, JsonSchema>;
  /** Template ids published together with this one. */
  publish_with?: string[];
  /** Advances when an embedded template changes (module-owned versions auto-upgrade). */
  schemaVersion?: number;
  /** Other editor or module metadata (for example `route` of an HTTP-entry flow). */
  [key: string]: unknown;
}

export interface FlowDocument {
  id?: string;
  name?: string;
  description?: string;
  nodes: FlowNode[];
  edges: FlowEdge[];
  meta?: FlowMeta;
}

/** One problem found in a document, addressed by a JSON path (for example `/nodes/2/kind`). */
export interface ValidationIssue {
  path: string;
  message: string;
  severity: 'error' | 'warning';
  /** Stable machine-readable code (for example `UNKNOWN_NODE`, `DUPLICATE_ID`). */
  code: string;
}
