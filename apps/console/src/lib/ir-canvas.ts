import type { FlowDocument, FlowEdge, FlowNode, NodeManifest } from './flow-types';

/**
 * Flow IR ↔ canvas (@xyflow/react) mapping. A flow node becomes a canvas node at its
 * `meta.positions` entry; an edge becomes a canvas edge whose source handle is its output port.
 * An IR edge without `port` fires on any port: it leaves the node's ANY_PORT handle, so drawing it
 * and saving it again keeps the port absent. Every node has one input handle (the IR names no input
 * port). Canvas nodes carry the IR node itself, so a round trip keeps names, configs and unknown
 * fields as they were.
 */

/** Source handle of an edge that names no port. */
export const ANY_PORT = '*';
/** The single target handle of every node. */
export const INPUT_HANDLE = 'in';
/** Spacing of the fallback grid for nodes without a saved position. */
export const GRID = { x: 260, y: 140, perRow: 4 } as const;

export interface CanvasNodeData extends Record<string, unknown> {
  node: FlowNode;
  /** Output handles: ANY_PORT first, then the manifest's declared outputs and any port an edge names. */
  outputs: string[];
  /** The node's manifest is missing from the registry (the flow would not publish). */
  unknown: boolean;
  /** Whether the node had no saved position (drawn on the fallback grid). */
  placed: boolean;
}

export interface CanvasNode {
  id: string;
  type: 'flow';
  position: { x: number; y: number };
  data: CanvasNodeData;
}

export interface CanvasEdgeData extends Record<string, unknown> {
  edge: FlowEdge;
}

export interface CanvasEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle: string;
  targetHandle: string;
  label?: string;
  data: CanvasEdgeData;
}

/**
 * Output handles of a node: ANY_PORT (an edge without port), each declared output of a node with
 * several (one edge per port, spec rule "Multi-output nodes"), and any port an existing edge names.
 * A single-output node needs no port handle (any port is its port); an end node has none at all.
 */
export function outputHandles(node: FlowNode, manifest: NodeManifest | undefined, edges: FlowEdge[] = []): string[] {
  const named = edges.filter((e) => e.from === node.id && e.port).map((e) => e.port as string);
  const ports = node.kind === 'end' && !named.length ? [] : [ANY_PORT];
  const outs = manifest ? manifest.outputs.map((o) => o.port) : [];
  const declared = outs.length > 1 ? outs : [];
  for (const p of [...declared, ...named]) if (!ports.includes(p)) ports.push(p);
  return ports;
}

/** Where a node without a saved position is drawn: the next free cell of a grid below the placed ones. */
function fallbackPosition(index: number, below: number): { x: number; y: number } {
  return { x: (index % GRID.perRow) * GRID.x, y: below + Math.floor(index / GRID.perRow) * GRID.y };
}

function edgeLabel(e: FlowEdge): string | undefined {
  const parts = [e.port, e.condition, e.delivery_mode && e.delivery_mode !== 'direct' ? e.delivery_mode : undefined].filter(Boolean);
  return parts.length ? parts.join(' · ') : undefined;
}

/** The canvas of a flow document, given the registry's manifests (by id). */
export function irToCanvas(doc: FlowDocument, manifests: ReadonlyMap<string, NodeManifest> | NodeManifest[] = []): { nodes: CanvasNode[]; edges: CanvasEdge[] } {
  const byId = Array.isArray(manifests) ? new Map(manifests.map((m) => [m.id, m])) : manifests;
  const positions = doc.meta?.positions ?? {};
  const placedYs = doc.nodes.map((n) => positions[n.id]?.y).filter((y): y is number => typeof y === 'number');
  const below = placedYs.length ? Math.max(...placedYs) + GRID.y : 0;
  let unplaced = 0;
  const nodes = doc.nodes.map((node): CanvasNode => {
    const saved = positions[node.id];
    const ok = saved && Number.isFinite(saved.x) && Number.isFinite(saved.y);
    const manifest = node.action_ref ? byId.get(node.action_ref) : undefined;
    return {
      id: node.id,
      type: 'flow',
      position: ok ? { x: saved.x, y: saved.y } : fallbackPosition(unplaced++, below),
      data: { node, outputs: outputHandles(node, manifest, doc.edges), unknown: Boolean(node.action_ref) && !manifest, placed: Boolean(ok) },
    };
  });
  const edges = doc.edges.map((edge): CanvasEdge => ({
    id: edge.id,
    source: edge.from,
    target: edge.to,
    sourceHandle: edge.port ?? ANY_PORT,
    targetHandle: INPUT_HANDLE,
    label: edgeLabel(edge),
    data: { edge },
  }));
  return { nodes, edges };
}

/** The minimal canvas state canvasToIr needs (what @xyflow/react hands back after edits). */
export interface CanvasState {
  nodes: Array<{ id: string; position: { x: number; y: number }; data: { node: FlowNode } }>;
  edges: Array<{ id: string; source: string; target: string; sourceHandle?: string | null; data?: { edge?: FlowEdge } }>;
}

/**
 * The flow document of a canvas: nodes and edges in canvas order, positions (rounded to whole
 * pixels) in `meta.positions`, everything else of `base` (name, description, other meta) kept.
 * An edge's `from`, `to` and `port` follow the canvas; its other fields come from its IR edge.
 */
export function canvasToIr(base: FlowDocument, state: CanvasState): FlowDocument {
  const ids = new Set(state.nodes.map((n) => n.id));
  const positions: Record<string, { x: number; y: number }> = {};
  for (const n of state.nodes) positions[n.id] = { x: Math.round(n.position.x), y: Math.round(n.position.y) };
  const edges: FlowEdge[] = state.edges
    .filter((e) => ids.has(e.source) && ids.has(e.target))
    .map((e) => {
      const { port: _port, ...rest } = e.data?.edge ?? ({ id: e.id } as FlowEdge);
      const port = e.sourceHandle && e.sourceHandle !== ANY_PORT ? e.sourceHandle : undefined;
      return { ...rest, id: e.id, from: e.source, to: e.target, ...(port ? { port } : {}) };
    });
  return { ...base, nodes: state.nodes.map((n) => ({ ...n.data.node, id: n.id })), edges, meta: { ...base.meta, positions } };
}

/** A node id not used yet, from a manifest id (`svc/email-send` → `email-send`, `email-send-2`, ...). */
export function freshNodeId(actionRef: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const stem = (actionRef.split('/').pop() || 'node').replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'node';
  if (!used.has(stem)) return stem;
  for (let i = 2; ; i++) if (!used.has(`${stem}-${i}`)) return `${stem}-${i}`;
}

/** A new IR node for a manifest, its config filled with the settings schema's defaults. */
export function nodeFromManifest(manifest: NodeManifest, taken: Iterable<string>): FlowNode {
  const config: Record<string, unknown> = {};
  const props = (manifest.settingsSchema?.['properties'] ?? {}) as Record<string, { default?: unknown }>;
  for (const [k, p] of Object.entries(props)) if (p && p.default !== undefined) config[k] = structuredClone(p.default);
  return { id: freshNodeId(manifest.id, taken), name: manifest.name, kind: manifest.kind, action_ref: manifest.id, ...(Object.keys(config).length ? { config } : {}) };
}

/** An edge id not used yet (`e-<from>-<to>`, then with a counter). */
export function freshEdgeId(from: string, to: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const stem = `e-${from}-${to}`;
  if (!used.has(stem)) return stem;
  for (let i = 2; ; i++) if (!used.has(`${stem}-${i}`)) return `${stem}-${i}`;
}

/** Node kinds placed without a registry entry: a pass-through start and an end. */
export const STRUCTURAL_KINDS = ['start', 'end'] as const;

/** A new start or end node (no action_ref: the engine passes the packet through). */
export function structuralNode(kind: (typeof STRUCTURAL_KINDS)[number], taken: Iterable<string>): FlowNode {
  return { id: freshNodeId(kind, taken), name: kind === 'start' ? 'Start' : 'End', kind };
}
