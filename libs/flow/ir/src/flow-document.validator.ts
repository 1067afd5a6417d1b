import type { FlowDocument, JsonSchema, ValidationIssue } from './flow-document';
import { stronglyConnected } from './strongly-connected';
import { FLOW_DOCUMENT_SCHEMA } from './flow-document.schema';
import { FLOW_ISSUE_CODES } from './flow-issue.codes';
import { jsonPointer } from './json-pointer.util';
import type { SettingsProblem } from './node-settings.validator';
import { packetConflicts } from './packet-compatibility';
import { lazySchema } from './schema.compiler';
import { schemaIssues } from './schema-issues.mapper';
import { hasOwn, isRecord } from './value.util';

/** Default of `FLOW_MAX_NODES`. */
export const DEFAULT_MAX_NODES = 500;

/** What the caller knows beyond the document itself; every check that needs it is skipped without it. */
export interface FlowValidationOptions {
  /** More nodes than this is an error (TOO_MANY_NODES); default 500. */
  maxNodes?: number;
  /** True when a node id is registered; an unknown `action_ref` is then an UNKNOWN_ACTION_REF issue. */
  knownActionRefs?: (ref: string) => boolean;
  /**
   * Severity of UNKNOWN_ACTION_REF (default error). Saving a version warns: the node may register
   * later (a remote service still starting), and publishing refuses the version until it does.
   */
  unknownActionRefSeverity?: 'error' | 'warning';
  /** Settings schema of a registered node; config keys outside it give an UNKNOWN_CONFIG_KEY warning. */
  nodeSettingsSchema?: (ref: string) => JsonSchema | undefined;
  /** Parse error of a condition, or undefined when it parses (plug in the condition compiler). */
  conditionError?: (source: string) => string | undefined;
  /**
   * What a registered node's settings schema refuses in its config; each problem is an
   * INVALID_NODE_CONFIG error at `/nodes/<i>/config/<path>`. Called for nodes with an `action_ref`.
   */
  nodeConfigProblems?: (node: { id: string; action_ref: string; config: Record<string, unknown> | undefined }) => SettingsProblem[];
  /** The typed ports of a registered node: edge packets are checked against them (PACKET_MISMATCH warnings). */
  nodePorts?: (ref: string) => NodePorts | undefined;
}

/** One typed port of a node manifest. */
export interface PortSchema {
  port: string;
  schema?: JsonSchema;
}

/** The ports of a node manifest. */
export interface NodePorts {
  inputs?: readonly PortSchema[];
  outputs?: readonly PortSchema[];
}

/** Outcome of a validation: `ok` when there is no error (warnings allowed); `document` is then the input, typed. */
export interface FlowValidationResult<T = FlowDocument> {
  ok: boolean;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  document?: T;
}

const validateShape = lazySchema(FLOW_DOCUMENT_SCHEMA);

/** Validates a flow document (IR): its shape, then graph and reference rules; returns every problem with its path. */
export function validateFlowDocument(doc: unknown, options: FlowValidationOptions = {}): FlowValidationResult {
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_NODES;
  if (isRecord(doc) && Array.isArray(doc.nodes) && doc.nodes.length > maxNodes) {
    // The limit bounds the work: a document this large is refused before anything else is looked at.
    const tooMany = issue('/nodes', 'error', FLOW_ISSUE_CODES.TOO_MANY_NODES, `the flow has ${doc.nodes.length} nodes; at most ${maxNodes} are allowed`);
    return { ok: false, errors: [tooMany], warnings: [] };
  }
  const validate = validateShape();
  const issues = validate(doc) ? [] : schemaIssues(validate.errors, { missingFieldMessage: { action_ref: 'an action node needs an action_ref (the id of a registered node)' } });
  if (isRecord(doc)) issues.push(...graphIssues(doc, options));
  return toValidationResult<FlowDocument>(doc, issues);
}

/** Config keys a node's settings schema does not declare (the engine drops them); `[]` when the schema allows any key. */
export function unknownConfigKeys(config: Record<string, unknown>, settingsSchema: JsonSchema): string[] {
  const extra = settingsSchema.additionalProperties;
  // The spec drops undeclared keys, so an absent additionalProperties counts as closed.
  if (extra === true || isRecord(extra)) return [];
  const declared = isRecord(settingsSchema.properties) ? settingsSchema.properties : {};
  const patterns = isRecord(settingsSchema.patternProperties) ? Object.keys(settingsSchema.patternProperties).flatMap(safeRegExp) : [];
  return Object.keys(config).filter((k) => !hasOwn(declared, k) && !patterns.some((p) => p.test(k)));
}

/** Splits issues by severity into a result; `document` is set when there is no error. */
export function toValidationResult<T>(doc: unknown, issues: ValidationIssue[]): FlowValidationResult<T> {
  const errors = issues.filter((i) => i.severity === 'error');
  const warnings = issues.filter((i) => i.severity === 'warning');
  const ok = errors.length === 0;
  return ok ? { ok, errors, warnings, document: doc as T } : { ok, errors, warnings };
}

function graphIssues(doc: Record<string, unknown>, options: FlowValidationOptions): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const nodes = Array.isArray(doc.nodes) ? doc.nodes : undefined;
  const edges = Array.isArray(doc.edges) ? doc.edges : [];
  const meta = isRecord(doc.meta) ? doc.meta : undefined;

  // Nodes: unique ids, a start node, registered action refs, config keys.
  const nodeIndex = new Map<string, number>();
  (nodes ?? []).forEach((node, i) => {
    if (!isRecord(node)) return;
    if (typeof node.id === 'string' && node.id !== '') {
      const first = nodeIndex.get(node.id);
      if (first === undefined) nodeIndex.set(node.id, i);
      else out.push(issue(jsonPointer('nodes', i, 'id'), 'error', FLOW_ISSUE_CODES.DUPLICATE_ID, `node id "${node.id}" is already used by /nodes/${first}`));
    }
    const ref = typeof node.action_ref === 'string' && node.action_ref !== '' ? node.action_ref : undefined;
    if (ref === undefined) return;
    if (options.knownActionRefs && !options.knownActionRefs(ref)) {
      const severity = options.unknownActionRefSeverity ?? 'error';
      const more = severity === 'warning' ? '; publishing refuses this version until it is registered' : '';
      out.push(issue(jsonPointer('nodes', i, 'action_ref'), severity, FLOW_ISSUE_CODES.UNKNOWN_ACTION_REF, `"${ref}" is not a registered node${more}`));
    }
    if (options.nodeConfigProblems && typeof node.id === 'string' && (node.config === undefined || isRecord(node.config))) {
      for (const p of options.nodeConfigProblems({ id: node.id, action_ref: ref, config: node.config as Record<string, unknown> | undefined })) {
        out.push(issue(`${jsonPointer('nodes', i, 'config')}${p.path}`, 'error', FLOW_ISSUE_CODES.INVALID_NODE_CONFIG, `node "${node.id}" (${ref}): ${p.key ? `${p.key} ` : ''}${p.message}`));
      }
    }
    const settings = options.nodeSettingsSchema && isRecord(node.config) ? options.nodeSettingsSchema(ref) : undefined;
    if (settings && isRecord(node.config)) {
      for (const key of unknownConfigKeys(node.config, settings)) {
        out.push(issue(jsonPointer('nodes', i, 'config', key), 'warning', FLOW_ISSUE_CODES.UNKNOWN_CONFIG_KEY, `config key "${key}" is not in the settings schema of ${ref} and is dropped`));
      }
    }
  });
  if (nodes && !nodes.some((n) => isRecord(n) && n.kind === 'start')) {
    out.push(issue('/nodes', 'error', FLOW_ISSUE_CODES.NO_START_NODE, 'the flow needs at least one node of kind "start" to receive the run input'));
  }
  const kindOf = (id: string): unknown => {
    const i = nodeIndex.get(id);
    return i === undefined ? undefined : (nodes?.[i] as Record<string, unknown>).kind;
  };

  // Edges: unique ids, existing endpoints, nothing leaving an end node, known packets, parsable conditions.
  const edgeIndex = new Map<string, number>();
  const packets = meta && isRecord(meta.packets) ? meta.packets : undefined;
  edges.forEach((edge, i) => {
    if (!isRecord(edge)) return;
    if (typeof edge.id === 'string' && edge.id !== '') {
      const first = edgeIndex.get(edge.id);
      if (first === undefined) edgeIndex.set(edge.id, i);
      else out.push(issue(jsonPointer('edges', i, 'id'), 'error', FLOW_ISSUE_CODES.DUPLICATE_ID, `edge id "${edge.id}" is already used by /edges/${first}`));
    }
    for (const end of ['from', 'to'] as const) {
      const target = edge[end];
      if (typeof target === 'string' && target !== '' && !nodeIndex.has(target)) {
        out.push(issue(jsonPointer('edges', i, end), 'error', FLOW_ISSUE_CODES.UNKNOWN_NODE, `no node has id "${target}"`));
      }
    }
    if (typeof edge.from === 'string' && kindOf(edge.from) === 'end') {
      out.push(issue(jsonPointer('edges', i, 'from'), 'warning', FLOW_ISSUE_CODES.END_NODE_HAS_OUTGOING_EDGE, `"${edge.from}" is an end node: it completes the run, so this edge never fires`));
    }
    if (typeof edge.packet === 'string' && edge.packet !== '' && !(packets && hasOwn(packets, edge.packet))) {
      out.push(issue(jsonPointer('edges', i, 'packet'), 'warning', FLOW_ISSUE_CODES.UNKNOWN_PACKET, `packet "${edge.packet}" is not defined in meta.packets`));
    }
    if (options.conditionError && typeof edge.condition === 'string') {
      const error = options.conditionError(edge.condition);
      if (error !== undefined) out.push(issue(jsonPointer('edges', i, 'condition'), 'warning', FLOW_ISSUE_CODES.CONDITION_PARSE_ERROR, `condition does not parse, so it is always false: ${error}`));
    }
    const packet = typeof edge.packet === 'string' && packets && hasOwn(packets, edge.packet) ? packets[edge.packet] : undefined;
    if (options.nodePorts && isRecord(packet)) {
      for (const reason of packetPortIssues(edge, packet, (id) => (nodeIndex.has(id) ? (nodes?.[nodeIndex.get(id) as number] as Record<string, unknown>) : undefined), options.nodePorts)) {
        out.push(issue(jsonPointer('edges', i, 'packet'), 'warning', FLOW_ISSUE_CODES.PACKET_MISMATCH, `packet "${String(edge.packet)}" ${reason}`));
      }
    }
  });

  out.push(...cycleIssues(nodes ?? [], edges, nodeIndex));

  // Positions (authoring rule 4): every node placed, nothing placed that is not a node.
  if (nodes && (meta === undefined || meta.positions === undefined || isRecord(meta.positions))) {
    const positions = meta && isRecord(meta.positions) ? meta.positions : {};
    for (const id of nodeIndex.keys()) {
      if (!hasOwn(positions, id)) out.push(issue(jsonPointer('meta', 'positions', id), 'warning', FLOW_ISSUE_CODES.MISSING_POSITION, `node "${id}" has no position and will be drawn at the origin`));
    }
    for (const id of Object.keys(positions)) {
      if (!nodeIndex.has(id)) out.push(issue(jsonPointer('meta', 'positions', id), 'warning', FLOW_ISSUE_CODES.STALE_POSITION, `no node has id "${id}"`));
    }
  }
  return out;
}

/** How an edge's packet disagrees with the output port it leaves and the input port it enters. */
function packetPortIssues(
  edge: Record<string, unknown>,
  packet: JsonSchema,
  nodeById: (id: string) => Record<string, unknown> | undefined,
  portsOf: (ref: string) => NodePorts | undefined,
): string[] {
  const out: string[] = [];
  const side = (id: unknown, direction: 'outputs' | 'inputs') => {
    const node = typeof id === 'string' ? nodeById(id) : undefined;
    const ref = node && typeof node.action_ref === 'string' && node.action_ref !== '' ? node.action_ref : undefined;
    const ports = ref ? portsOf(ref)?.[direction] : undefined;
    if (!ref || !ports || ports.length === 0) return undefined;
    // The edge's own port, else the first one: the shape the runtime carries when `packet` is absent.
    const wanted = direction === 'outputs' && typeof edge.port === 'string' && edge.port !== '' ? edge.port : undefined;
    const port = wanted !== undefined ? ports.find((p) => p.port === wanted) : ports[0];
    return port && isRecord(port.schema) ? { id: id as string, ref, port: port.port, schema: port.schema } : undefined;
  };
  const from = side(edge.from, 'outputs');
  if (from) for (const c of packetConflicts(packet, from.schema, 'produced')) out.push(`does not match output port "${from.port}" of "${from.id}" (${from.ref}): ${c}`);
  const to = side(edge.to, 'inputs');
  if (to) for (const c of packetConflicts(packet, to.schema, 'expected')) out.push(`does not match input port "${to.port}" of "${to.id}" (${to.ref}): ${c}`);
  return out;
}

function isGuard(condition: unknown): boolean {
  return typeof condition === 'string' && condition.trim() !== '' && condition.trim() !== 'true';
}

/**
 * One UNBOUNDED_CYCLE warning per group of nodes that reach each other (a strongly connected
 * component with more than one node, or a node with an edge to itself) when none of its nodes is
 * a `wait` and none of the edges inside it has a condition: nothing ever stops a run going round,
 * so it ends at the engine's step limit (MAX_STEPS).
 */
function cycleIssues(nodes: unknown[], edges: unknown[], nodeIndex: Map<string, number>): ValidationIssue[] {
  const n = nodes.length;
  const adj: number[][] = Array.from({ length: n }, () => []);
  const inner: Array<{ from: number; to: number; index: number; guarded: boolean }> = [];
  edges.forEach((edge, index) => {
    if (!isRecord(edge) || typeof edge.from !== 'string' || typeof edge.to !== 'string') return;
    const from = nodeIndex.get(edge.from);
    const to = nodeIndex.get(edge.to);
    if (from === undefined || to === undefined) return;
    adj[from].push(to);
    inner.push({ from, to, index, guarded: isGuard(edge.condition) });
  });
  const comp = stronglyConnected(adj);
  const out: ValidationIssue[] = [];
  const groups = new Map<number, number[]>();
  comp.forEach((c, v) => groups.set(c, [...(groups.get(c) ?? []), v]));
  for (const [c, members] of groups) {
    const edgesIn = inner.filter((e) => comp[e.from] === c && comp[e.to] === c);
    if (edgesIn.length === 0) continue;
    if (members.some((v) => isRecord(nodes[v]) && (nodes[v] as Record<string, unknown>).kind === 'wait')) continue;
    if (edgesIn.some((e) => e.guarded)) continue;
    const ids = members.map((v) => JSON.stringify((nodes[v] as Record<string, unknown>).id));
    const first = Math.min(...edgesIn.map((e) => e.index));
    out.push(
      issue(
        jsonPointer('edges', first),
        'warning',
        FLOW_ISSUE_CODES.UNBOUNDED_CYCLE,
        `nodes ${ids.join(', ')} form a cycle with no wait node and no condition on its edges: a run goes round until it exceeds its step limit`,
      ),
    );
  }
  return out;
}

function issue(path: string, severity: ValidationIssue['severity'], code: string, message: string): ValidationIssue {
  return { path, message, severity, code };
}

function safeRegExp(source: string): RegExp[] {
  try {
    return [new RegExp(source, 'u')];
  } catch {
    return [];
  }
}
