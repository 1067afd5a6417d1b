import type { FlowDocument, FlowEdge, FlowNode } from './flow-types';

/**
 * What changed between two versions of a flow: nodes and edges added, removed and changed (by id,
 * naming the fields that differ), and nodes that only moved on the canvas (`meta.positions`),
 * listed apart because a move changes no behaviour.
 */
export interface Change {
  id: string;
  /** Top-level fields that differ (`config`, `action_ref`, `condition`, ...). */
  fields: string[];
}

export interface SideDiff<T> {
  added: T[];
  removed: T[];
  changed: Change[];
}

export interface VersionDiff {
  nodes: SideDiff<FlowNode>;
  edges: SideDiff<FlowEdge>;
  /** Node ids present in both whose position alone differs. */
  moved: string[];
  /** Document fields besides nodes, edges and positions that differ (`name`, `meta.packets`, ...). */
  other: string[];
  /** True when nothing at all differs. */
  same: boolean;
}

/** Canonical JSON: object keys sorted, so key order never counts as a change. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

function diffById<T extends { id: string }>(before: T[], after: T[]): SideDiff<T> {
  const a = new Map(before.map((x) => [x.id, x]));
  const b = new Map(after.map((x) => [x.id, x]));
  const changed: Change[] = [];
  for (const [id, x] of a) {
    const y = b.get(id);
    if (!y) continue;
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
    const fields = keys.filter((k) => canonical((x as Record<string, unknown>)[k]) !== canonical((y as Record<string, unknown>)[k]));
    if (fields.length) changed.push({ id, fields });
  }
  return { added: after.filter((x) => !a.has(x.id)), removed: before.filter((x) => !b.has(x.id)), changed };
}

/** The difference from version `before` to version `after`. */
export function diffVersions(before: FlowDocument, after: FlowDocument): VersionDiff {
  const nodes = diffById(before.nodes ?? [], after.nodes ?? []);
  const edges = diffById(before.edges ?? [], after.edges ?? []);
  const pa = before.meta?.positions ?? {};
  const pb = after.meta?.positions ?? {};
  const both = (before.nodes ?? []).map((n) => n.id).filter((id) => (after.nodes ?? []).some((m) => m.id === id));
  const moved = both.filter((id) => canonical(pa[id]) !== canonical(pb[id]));
  const other: string[] = [];
  for (const k of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (k === 'nodes' || k === 'edges' || k === 'meta') continue;
    if (canonical((before as unknown as Record<string, unknown>)[k]) !== canonical((after as unknown as Record<string, unknown>)[k])) other.push(k);
  }
  const ma = before.meta ?? {};
  const mb = after.meta ?? {};
  for (const k of [...new Set([...Object.keys(ma), ...Object.keys(mb)])].sort()) {
    if (k !== 'positions' && canonical(ma[k]) !== canonical(mb[k])) other.push(`meta.${k}`);
  }
  const same = !nodes.added.length && !nodes.removed.length && !nodes.changed.length && !edges.added.length && !edges.removed.length && !edges.changed.length && !moved.length && !other.length;
  return { nodes, edges, moved, other, same };
}
