/**
 * The shapes the console reads from the API, written out here so the pure modules of src/lib stay
 * free of server code: the flow document of libs/flow/ir (`GET /flows/{id}/versions/{versionId}`)
 * and the node manifests of `GET /flows/nodes`.
 */

export type JsonSchema = Record<string, unknown>;

export interface FlowNode {
  id: string;
  name?: string;
  description?: string;
  kind: string;
  action_ref?: string;
  config?: Record<string, unknown>;
}

export interface FlowEdge {
  id: string;
  from: string;
  to: string;
  /** Output port of `from`; absent means any port. */
  port?: string;
  delivery_mode?: string;
  condition?: string;
  packet?: string;
}

export interface FlowDocument {
  id?: string;
  name?: string;
  description?: string;
  nodes: FlowNode[];
  edges: FlowEdge[];
  meta?: { positions?: Record<string, { x: number; y: number }>; [key: string]: unknown };
}

export interface NodePort {
  port: string;
  schema?: JsonSchema;
  description?: string;
}

export interface NodeManifest {
  id: string;
  name: string;
  kind: string;
  description?: string;
  settingsSchema?: JsonSchema;
  inputs: NodePort[];
  outputs: NodePort[];
  remote?: boolean;
  source?: string;
}

/** A translation function with the kit's `$t` signature, passed in so these modules need no catalog. */
export type Translate = (key: string, fallback: string, params?: Record<string, string | number>) => string;

/** `$t` without a catalog: the default with `{token}`s filled (for tests and callers without one). */
export const plainT: Translate = (_key, fallback, params) => fallback.replace(/\{(\w+)\}/g, (m, k: string) => (params && k in params ? String(params[k]) : m));
