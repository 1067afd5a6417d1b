/**
 * The flow definition language, document form B (`flowdef: "1.0"`), spec: flows-compile-search-hub.md
 * "Flow definition language, document form B". Templates are served in this form and versions may be
 * saved in it (`?format=spec`). `x-` extensions carry what form B has no field for, so that
 * IR → spec → IR is lossless; see spec-form.converter.ts for the mapping.
 */
import type { DeliveryMode, JsonSchema, NodeKind } from './flow-document';

/** The form-B version this converter writes (a YAML `flowdef: 1.0` number is read as the same). */
export const FLOWDEF_VERSION = '1.0';

/** Node kinds of form B. */
export const SPEC_NODE_KINDS = ['source', 'action', 'llm'] as const;
export type SpecNodeKind = (typeof SPEC_NODE_KINDS)[number];

export interface SpecInfo {
  title: string;
  /** Mirrors the IR's `meta.version` (a free-form document version string). */
  version?: string;
  description?: string;
  [extension: `x-${string}`]: unknown;
}

export interface SpecServer {
  url: string;
  protocol?: string;
  description?: string;
  [extension: `x-${string}`]: unknown;
}

export interface SpecNode {
  /** The registered node this node runs (the IR `action_ref`). */
  operationId?: string;
  kind: SpecNodeKind;
  /** One-line description (the IR node `description`). */
  summary?: string;
  /** IR node id; absent in hand-written documents (the map key is then the id). */
  'x-id'?: string;
  /** IR node name when it differs from the map key; null when the IR node has no name. */
  'x-name'?: string | null;
  /** IR node kind when the form-B kind does not imply it. */
  'x-kind'?: NodeKind;
  /** Registered node id; overrides `operationId` when both are present. */
  'x-action-ref'?: string;
  'x-config'?: Record<string, unknown>;
  'x-position'?: { x: number; y: number };
  [extension: `x-${string}`]: unknown;
}

export interface SpecEdge {
  /** Map key (node name) of the source node. */
  from: string;
  /** Map key (node name) of the target node. */
  to: string;
  delivery?: { mode: DeliveryMode; [extension: `x-${string}`]: unknown };
  /** Name of a schema in `components.packets`. */
  packet?: string;
  'x-id'?: string;
  /** Condition language expression. */
  'x-condition'?: string;
  /** Output port of the source node. */
  'x-port'?: string;
  [extension: `x-${string}`]: unknown;
}

export interface SpecDocument {
  /** `"1.0"`. */
  flowdef: string;
  info: SpecInfo;
  /** Mirrors the IR's `meta.servers`. */
  servers?: Record<string, SpecServer>;
  /** Node name → node. */
  nodes: Record<string, SpecNode>;
  edges: SpecEdge[];
  components?: { packets?: Record<string, JsonSchema>; [extension: `x-${string}`]: unknown };
  /** IR flow id. */
  'x-id'?: string;
  /** IR flow name when it differs from `info.title`; null when the IR document has no name. */
  'x-name'?: string | null;
  /** IR `meta` fields that have no form-B home. */
  'x-meta'?: Record<string, unknown>;
  [extension: `x-${string}`]: unknown;
}
