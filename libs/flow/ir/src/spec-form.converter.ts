/**
 * IR ↔ flow definition language form B.
 *
 * Mapping (IR → spec; spec → IR reads it back, so IR → spec → IR is lossless):
 * - `id` → `x-id`; `name` → `info.title` (when there is no name, the title falls back to the id or
 *   "Untitled flow" and `x-name: null` records the absence); `description` → `info.description`.
 * - Each node becomes an entry of the `nodes` map. Its key is the node name, or the id when the name
 *   is empty or absent, de-duplicated with `_2`, `_3`... suffixes; a key that looks like an array index
 *   (`"3"`) is written `node_3` because JavaScript orders such keys first and node order would be lost.
 *   The id goes to `x-id` (always, so renaming a key keeps the node's identity), the name to `x-name`
 *   only when it differs from the key (`null` when absent), `action_ref` → `operationId`,
 *   `description` → `summary`, `config` → `x-config`, `meta.positions[id]` → `x-position`.
 * - Kinds: `start` and `event` → `source`; `action` whose action_ref is an LLM node (`llm`, `llm-*`
 *   as the last segment, for example `svc/llm-chat`) → `llm`; everything else → `action`. `x-kind`
 *   holds the IR kind for every kind other than `start` and `action` (end, event, gateway, condition,
 *   wait, parallel), and whenever reading the spec kind back would give another one.
 * - Edges keep their order; `from`/`to` become node keys, `delivery_mode` → `delivery.mode`,
 *   `packet` stays, `id` → `x-id`, `condition` → `x-condition`, `port` → `x-port`.
 * - `meta.packets` → `components.packets`, `meta.servers` → `servers`, `meta.version` (string) →
 *   `info.version`, everything else of `meta` (publish_with, schemaVersion, route, positions of ids
 *   that are no node...) → `x-meta`. A value of the wrong shape for its form-B home stays in `x-meta`.
 *
 * Reading a hand-written spec (no `x-` extensions): the map key is the node id and name; kind
 * `source` → `start`, `llm` → `action`, `action` → `action`, except that an `action` node with no
 * operationId and no outgoing edge is an `end`; `action_ref` comes from `x-action-ref`, else
 * `operationId`; a missing edge id is derived as `<from>-><to>` (de-duplicated).
 */
import type { DeliveryMode, FlowDocument, FlowEdge, FlowMeta, FlowNode, JsonSchema, NodeKind } from './flow-document';
import { FLOWDEF_VERSION, type SpecDocument, type SpecEdge, type SpecNode, type SpecNodeKind } from './spec-document';
import { SPEC_SERVERS_SCHEMA } from './spec-document.schema';
import { lazySchema } from './schema.compiler';
import { cloneJson, hasOwn, isRecord, setOwn } from './value.util';

/** Title written when the IR document has neither a name nor an id. */
export const UNTITLED_FLOW = 'Untitled flow';

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;
const validServers = lazySchema(SPEC_SERVERS_SCHEMA);

/** True for registered LLM nodes: the last path segment is `llm` or starts with `llm-` (svc/llm-chat). */
export function isLlmActionRef(ref: string): boolean {
  const last = ref.slice(ref.lastIndexOf('/') + 1).toLowerCase();
  return last === 'llm' || last.startsWith('llm-') || last.startsWith('llm_');
}

/** Form-B kind of an IR node. */
export function specKindOf(node: Pick<FlowNode, 'kind' | 'action_ref'>): SpecNodeKind {
  if (node.kind === 'start' || node.kind === 'event') return 'source';
  if (node.kind === 'action' && node.action_ref !== undefined && isLlmActionRef(node.action_ref)) return 'llm';
  return 'action';
}

/** IR kind a form-B node without `x-kind` stands for. */
export function impliedNodeKind(specKind: unknown, hasActionRef: boolean, hasOutgoingEdge: boolean): NodeKind {
  if (specKind === 'source') return 'start';
  if (specKind === 'action' && !hasActionRef && !hasOutgoingEdge) return 'end';
  return 'action';
}

/** Converts a flow document (IR) to form B; `specToIr` of the result deep-equals the input. */
export function irToSpec(doc: FlowDocument): SpecDocument {
  const keyById = new Map<string, string>();
  const usedKeys = new Set<string>();
  const nodeKeys = doc.nodes.map((n) => {
    const named = typeof n.name === 'string' && n.name.trim() !== '';
    let base = named ? (n.name as string) : n.id;
    if (ARRAY_INDEX.test(base)) base = `node_${base}`;
    const key = uniqueName(base, usedKeys);
    usedKeys.add(key);
    if (!keyById.has(n.id)) keyById.set(n.id, key);
    return key;
  });
  const withOutgoing = new Set(doc.edges.map((e) => e.from));
  const positions = isRecord(doc.meta?.positions) ? doc.meta.positions : undefined;
  const placed = new Set<string>();

  const nodes: Record<string, SpecNode> = {};
  doc.nodes.forEach((n, i) => {
    const key = nodeKeys[i];
    const node: SpecNode = { ...(n.action_ref !== undefined && { operationId: n.action_ref }), kind: specKindOf(n) };
    if (n.description !== undefined) node.summary = n.description;
    node['x-id'] = n.id;
    if (n.name !== key) node['x-name'] = n.name ?? null;
    // Explicit for every kind form B has no word for (an `end` stays an end when an edge is added later).
    const implied = impliedNodeKind(node.kind, n.action_ref !== undefined, withOutgoing.has(n.id));
    if (implied !== n.kind || (n.kind !== 'start' && n.kind !== 'action')) node['x-kind'] = n.kind;
    if (n.config !== undefined) node['x-config'] = cloneJson(n.config);
    if (positions && hasOwn(positions, n.id)) {
      node['x-position'] = cloneJson(positions[n.id]);
      placed.add(n.id);
    }
    setOwn(nodes, key, node);
  });

  const edges = doc.edges.map((e) => {
    const edge: SpecEdge = { from: keyById.get(e.from) ?? e.from, to: keyById.get(e.to) ?? e.to };
    if (e.delivery_mode !== undefined) edge.delivery = { mode: e.delivery_mode };
    if (e.packet !== undefined) edge.packet = e.packet;
    edge['x-id'] = e.id;
    if (e.condition !== undefined) edge['x-condition'] = e.condition;
    if (e.port !== undefined) edge['x-port'] = e.port;
    return edge;
  });

  const meta = doc.meta !== undefined ? splitMeta(doc.meta, keyById, placed) : {};
  const info: SpecDocument['info'] = { title: doc.name ?? doc.id ?? UNTITLED_FLOW };
  if (meta.version !== undefined) info.version = meta.version;
  if (doc.description !== undefined) info.description = doc.description;
  const spec: SpecDocument = { flowdef: FLOWDEF_VERSION, info, ...(meta.servers !== undefined && { servers: meta.servers }), nodes, edges };
  if (meta.packets !== undefined) spec.components = { packets: meta.packets };
  if (doc.id !== undefined) spec['x-id'] = doc.id;
  if (doc.name === undefined) spec['x-name'] = null;
  if (meta.rest !== undefined) spec['x-meta'] = meta.rest;
  return spec;
}

/** Converts a form-B document to a flow document (IR); accepts hand-written documents without `x-` extensions. */
export function specToIr(spec: SpecDocument): FlowDocument {
  return specToIrTraced(spec).doc;
}

/** Where each IR field came from in the spec, to address IR validation issues in spec terms. */
export interface SpecTrace {
  nodeKeys: string[];
  keyById: Map<string, string>;
  nodeExtensions: Array<Set<string>>;
  nameFromExtension: boolean;
  /** IR meta keys whose value came from `x-meta`. */
  metaFromExtension: Set<string>;
}

/**
 * specToIr for possibly invalid input: never throws, copies ill-typed values as they are (the IR
 * validator then reports them) and records where each field came from.
 */
export function specToIrTraced(input: unknown): { doc: FlowDocument; trace: SpecTrace } {
  const spec = isRecord(input) ? input : {};
  const info = isRecord(spec.info) ? spec.info : {};
  const entries = Object.entries(isRecord(spec.nodes) ? spec.nodes : {}).map(([key, n]) => [key, isRecord(n) ? n : {}] as const);
  const specEdges = (Array.isArray(spec.edges) ? spec.edges : []).map((e: unknown) => (isRecord(e) ? e : {}));

  const explicitId = (n: Record<string, unknown>): string | undefined => (typeof n['x-id'] === 'string' ? n['x-id'] : undefined);
  const usedIds = new Set(entries.map(([, n]) => explicitId(n)).filter((id): id is string => id !== undefined));
  const idByKey = new Map<string, string>();
  for (const [key, n] of entries) {
    let id = explicitId(n);
    if (id === undefined) {
      id = uniqueName(key, usedIds);
      usedIds.add(id);
    }
    idByKey.set(key, id);
  }
  const resolve = (name: unknown): unknown => (typeof name === 'string' ? (idByKey.get(name) ?? name) : name);
  const withOutgoing = new Set(specEdges.map((e) => e.from));

  const positions: Record<string, unknown> = {};
  let anyPosition = false;
  const nodes = entries.map(([key, n]) => {
    const id = idByKey.get(key) as string;
    const actionRef = n['x-action-ref'] !== undefined ? n['x-action-ref'] : n.operationId;
    const name = hasOwn(n, 'x-name') ? (n['x-name'] === null ? undefined : n['x-name']) : key;
    const kind = n['x-kind'] !== undefined ? n['x-kind'] : impliedNodeKind(n.kind, actionRef !== undefined, withOutgoing.has(key));
    const node: Record<string, unknown> = { id };
    if (name !== undefined) node.name = name;
    if (n.summary !== undefined) node.description = n.summary;
    node.kind = kind;
    if (actionRef !== undefined) node.action_ref = actionRef;
    if (n['x-config'] !== undefined) node.config = cloneJson(n['x-config']);
    if (n['x-position'] !== undefined) {
      setOwn(positions, id, cloneJson(n['x-position']));
      anyPosition = true;
    }
    return node as unknown as FlowNode;
  });

  const usedEdgeIds = new Set(specEdges.map((e) => e['x-id']).filter((id): id is string => typeof id === 'string'));
  const edges = specEdges.map((e) => {
    const from = resolve(e.from);
    const to = resolve(e.to);
    let id = e['x-id'];
    if (typeof id !== 'string') {
      id = uniqueName(`${String(from)}->${String(to)}`, usedEdgeIds);
      usedEdgeIds.add(id as string);
    }
    const edge: Record<string, unknown> = { id, from, to };
    if (e['x-port'] !== undefined) edge.port = e['x-port'];
    if (isRecord(e.delivery) && e.delivery.mode !== undefined) edge.delivery_mode = e.delivery.mode as DeliveryMode;
    if (e['x-condition'] !== undefined) edge.condition = e['x-condition'];
    if (e.packet !== undefined) edge.packet = e.packet;
    return edge as unknown as FlowEdge;
  });

  const doc: FlowDocument = { nodes, edges };
  if (spec['x-id'] !== undefined) doc.id = spec['x-id'] as string;
  const nameFromExtension = hasOwn(spec, 'x-name');
  const name = nameFromExtension ? spec['x-name'] : info.title;
  if (name !== undefined && name !== null) doc.name = name as string;
  if (info.description !== undefined) doc.description = info.description as string;

  const xMeta = isRecord(spec['x-meta']) ? spec['x-meta'] : undefined;
  const components = isRecord(spec.components) ? spec.components : {};
  const metaFromExtension = new Set(Object.keys(xMeta ?? {}));
  if (xMeta !== undefined || anyPosition || components.packets !== undefined || spec.servers !== undefined || info.version !== undefined) {
    const meta: FlowMeta = xMeta ? cloneJson(xMeta) : {};
    if (anyPosition) {
      meta.positions = isRecord(meta.positions) ? { ...meta.positions, ...(positions as FlowMeta['positions']) } : (positions as FlowMeta['positions']);
      // A position merged from a node overrides a stale x-meta entry with the same id.
    }
    if (components.packets !== undefined) setMeta(meta, 'packets', cloneJson(components.packets), metaFromExtension);
    if (spec.servers !== undefined) setMeta(meta, 'servers', cloneJson(spec.servers), metaFromExtension);
    if (info.version !== undefined) setMeta(meta, 'version', info.version, metaFromExtension);
    doc.meta = meta;
  }

  const keyById = new Map<string, string>();
  for (const [key, id] of idByKey) if (!keyById.has(id)) keyById.set(id, key);
  return {
    doc,
    trace: {
      nodeKeys: entries.map(([key]) => key),
      keyById,
      nodeExtensions: entries.map(([, n]) => new Set(Object.keys(n).filter((k) => k.startsWith('x-') && n[k] !== undefined))),
      nameFromExtension,
      metaFromExtension,
    },
  };
}

/** Puts IR meta into its form-B homes; what has none goes to `x-meta` (`rest`). */
function splitMeta(
  meta: FlowMeta,
  keyById: Map<string, string>,
  placed: Set<string>,
): { servers?: SpecDocument['servers']; packets?: Record<string, JsonSchema>; version?: string; rest?: Record<string, unknown> } {
  const out: ReturnType<typeof splitMeta> = {};
  const rest: Record<string, unknown> = {};
  // Whether the spec shows that meta exists without x-meta (specToIr recreates meta from these).
  let carried = placed.size > 0;
  for (const [k, v] of Object.entries(meta)) {
    if (v === undefined) continue;
    if (k === 'positions' && isRecord(v)) {
      const stale: Record<string, unknown> = {};
      for (const [id, p] of Object.entries(v)) if (!keyById.has(id)) setOwn(stale, id, cloneJson(p));
      if (Object.keys(stale).length > 0 || placed.size === 0) setOwn(rest, k, stale);
    } else if (k === 'packets' && isRecord(v)) {
      out.packets = cloneJson(v) as Record<string, JsonSchema>;
      carried = true;
    } else if (k === 'servers' && validServers()(v)) {
      out.servers = cloneJson(v) as SpecDocument['servers'];
      carried = true;
    } else if (k === 'version' && typeof v === 'string') {
      out.version = v;
      carried = true;
    } else {
      setOwn(rest, k, cloneJson(v));
    }
  }
  if (Object.keys(rest).length > 0 || !carried) out.rest = rest;
  return out;
}

function setMeta(meta: FlowMeta, key: string, value: unknown, fromExtension: Set<string>): void {
  meta[key] = value;
  fromExtension.delete(key);
}

function uniqueName(base: string, used: Set<string>): string {
  if (!used.has(base)) return base;
  let n = 2;
  while (used.has(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}
