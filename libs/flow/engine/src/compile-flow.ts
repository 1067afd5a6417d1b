import { createHash, randomUUID } from 'node:crypto';
import { compileConditionCached, type CompiledCondition } from '@flowplane/flow/conditions';
import type { DeliveryMode, FlowDocument, FlowEdge, FlowNode, NodeKind } from '@flowplane/flow/ir';
import {
  declaredKindModule,
  interpretConfig,
  overridableKeys,
  profileSelectors,
  settingsDefaults,
  type ConfigWarning,
  type ProfileKindModuleLookup,
  type ProfileSelector,
} from './config-interpreter';
import { ERROR_PORT, type NodeDefinition, type NodeInfo } from './node-manifest';
import type { NodeRegistry } from './node-registry';
import { type SettingRef, settingRefsOf } from './setting-refs';

/**
 * A flow version compiled once for execution: nodes and edges indexed, every edge condition
 * compiled, configs interpreted, and the outgoing edges of each node grouped by port so a step
 * routes its outputs with two array scans and no parsing.
 */

/** Compiles one condition source (the conditions lib's `compileConditionCached` by default). */
export type ConditionCompiler = (source: string) => CompiledCondition;

/** Options of `compileFlow`. */
export interface CompileFlowOptions {
  /** Id runs and checkpoints refer to; default a content hash of the document. */
  versionId?: string;
  /** Injected condition compiler (tests, alternative languages). */
  compileCondition?: ConditionCompiler;
  /** Maps an `x-profile-kind` kind id to its owner module; default: the kinds declared in contracts. */
  profileKindModule?: ProfileKindModuleLookup;
}

/** A node whose `action_ref` names no registered node. */
export interface BrokenNode {
  nodeId: string;
  actionRef: string;
}

/** A problem found while compiling (never fatal: the version still runs as far as it can). */
export interface CompileWarning {
  code: 'UNKNOWN_CONFIG_KEY' | 'CONFIG_TYPE_MISMATCH' | 'BROKEN_NODE' | 'DANGLING_EDGE' | 'DUPLICATE_NODE' | 'CONDITION_PARSE_ERROR';
  message: string;
  nodeId?: string;
  edgeId?: string;
  key?: string;
}

/** An edge ready to fire. */
export interface CompiledEdge {
  readonly id: string;
  readonly edge: FlowEdge;
  readonly from: CompiledNode;
  readonly to: CompiledNode;
  readonly mode: DeliveryMode;
  /** Undefined for a default edge (no condition, blank, or `true`). */
  readonly condition?: CompiledCondition;
}

/** The candidate edges of one output port: conditional ones first, defaults when none matched. */
export interface PortRoute {
  readonly conditional: readonly CompiledEdge[];
  readonly defaults: readonly CompiledEdge[];
}

/** A node ready to run. */
export interface CompiledNode {
  readonly id: string;
  readonly node: FlowNode;
  readonly info: NodeInfo;
  readonly kind: NodeKind;
  readonly actionRef?: string;
  /** The registered node; undefined for a pass-through node (no `action_ref`) or a broken one. */
  definition?: NodeDefinition;
  readonly broken: boolean;
  /** Interpreted config without defaults (the layer that goes on top of profiles). Frozen. */
  readonly ownConfig: Readonly<Record<string, unknown>>;
  /** Settings defaults, filled under everything else. */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** The effective config when the node has no profile selector: defaults under own config. Frozen. */
  readonly staticConfig: Readonly<Record<string, unknown>>;
  readonly configWarnings: readonly ConfigWarning[];
  readonly selectors: readonly ProfileSelector[];
  /** Config values that name module settings (`$setting:<module>/<key>`), resolved before each run of the step. */
  readonly settingRefs: readonly SettingRef[];
  readonly overridable: ReadonlySet<string>;
  readonly hasErrorPort: boolean;
  readonly timeoutMs?: number;
  readonly outgoing: readonly CompiledEdge[];
  /** Whether a `stream` edge leaves the node (its tokens are kept for the downstream step). */
  readonly streamsDownstream: boolean;
  /** For an `end` node: the status it gives the run (`config.status: "rejected"` → rejected). */
  readonly endStatus?: 'completed' | 'rejected';
  /** The candidate edges of an output port (cached per port). */
  route(port: string): PortRoute;
}

/** A compiled flow version. Immutable apart from broken nodes healing when their handler appears. */
export interface CompiledFlow {
  readonly versionId: string;
  readonly document: FlowDocument;
  readonly nodes: ReadonlyMap<string, CompiledNode>;
  readonly edges: ReadonlyMap<string, CompiledEdge>;
  /** Nodes of kind `start`; when there is none, the nodes no edge enters. */
  readonly starts: readonly CompiledNode[];
  readonly broken: readonly BrokenNode[];
  readonly warnings: readonly CompileWarning[];
  /** Whether any edge is `checkpoint` (runs of this version are recorded in the checkpoint store). */
  readonly hasCheckpoints: boolean;
}

const EMPTY_ROUTE: PortRoute = Object.freeze({ conditional: [], defaults: [] });
const MAX_CACHED_PORTS = 64;

class NodeImpl implements CompiledNode {
  readonly id: string;
  readonly info: NodeInfo;
  readonly kind: NodeKind;
  readonly actionRef?: string;
  definition?: NodeDefinition;
  readonly broken: boolean;
  readonly ownConfig: Readonly<Record<string, unknown>>;
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly staticConfig: Readonly<Record<string, unknown>>;
  readonly configWarnings: readonly ConfigWarning[];
  readonly selectors: readonly ProfileSelector[];
  readonly settingRefs: readonly SettingRef[];
  readonly overridable: ReadonlySet<string>;
  readonly hasErrorPort: boolean;
  readonly timeoutMs?: number;
  outgoing: CompiledEdge[] = [];
  streamsDownstream = false;
  readonly endStatus?: 'completed' | 'rejected';
  private readonly routes = new Map<string, PortRoute>();

  constructor(
    readonly node: FlowNode,
    definition: NodeDefinition | undefined,
    kindModule: ProfileKindModuleLookup,
  ) {
    this.id = node.id;
    this.kind = node.kind;
    this.actionRef = node.action_ref || undefined;
    this.definition = definition;
    this.broken = this.actionRef !== undefined && definition === undefined;
    this.info = Object.freeze({ id: node.id, name: node.name, kind: node.kind, actionRef: this.actionRef });
    const schema = definition?.manifest.settingsSchema;
    const interpreted = interpretConfig(schema, node.config);
    this.ownConfig = deepFreeze(interpreted.config);
    this.configWarnings = interpreted.warnings;
    this.defaults = deepFreeze(settingsDefaults(schema));
    this.staticConfig = deepFreeze(fillDefaults(this.defaults, interpreted.config));
    this.selectors = profileSelectors(schema, kindModule);
    this.settingRefs = settingRefsOf(this.staticConfig);
    this.overridable = overridableKeys(schema);
    this.hasErrorPort = definition?.manifest.outputs?.some((p) => p.port === ERROR_PORT) ?? false;
    this.timeoutMs = definition?.manifest.timeoutMs;
    if (node.kind === 'end') this.endStatus = this.staticConfig.status === 'rejected' ? 'rejected' : 'completed';
  }

  route(port: string): PortRoute {
    const hit = this.routes.get(port);
    if (hit) return hit;
    const conditional: CompiledEdge[] = [];
    const defaults: CompiledEdge[] = [];
    for (const e of this.outgoing) {
      if (e.edge.port !== undefined && e.edge.port !== '' && e.edge.port !== port) continue;
      (e.condition ? conditional : defaults).push(e);
    }
    const route = conditional.length || defaults.length ? { conditional, defaults } : EMPTY_ROUTE;
    if (this.routes.size < MAX_CACHED_PORTS) this.routes.set(port, route);
    return route;
  }
}

/**
 * Compiles a flow document against a node registry. Never throws on a bad document: dangling
 * edges, duplicate node ids, unknown action refs and unparseable conditions become warnings (the
 * IR validator is where a document is refused); the run reports them again where they matter.
 */
/**
 * True when a node of `flow` was compiled against a definition that `registry` has since replaced
 * (a remote node registered again, with perhaps other ports or settings): compile it again. A node
 * that was removed does not count; its steps fail on the missing registration.
 */
export function boundToReplacedNode(flow: CompiledFlow, registry: NodeRegistry): boolean {
  for (const node of flow.nodes.values()) {
    if (node.definition === undefined || node.actionRef === undefined) continue;
    const current = registry.get(node.actionRef);
    if (current !== undefined && current.manifest !== node.definition.manifest) return true;
  }
  return false;
}

export function compileFlow(document: FlowDocument, registry: NodeRegistry, options: CompileFlowOptions = {}): CompiledFlow {
  const compile = options.compileCondition ?? compileConditionCached;
  const kindModule = options.profileKindModule ?? declaredKindModule;
  const warnings: CompileWarning[] = [];
  const broken: BrokenNode[] = [];
  const nodes = new Map<string, NodeImpl>();

  for (const n of Array.isArray(document.nodes) ? document.nodes : []) {
    if (!n || typeof n.id !== 'string') continue;
    if (nodes.has(n.id)) {
      warnings.push({ code: 'DUPLICATE_NODE', nodeId: n.id, message: `node id ${JSON.stringify(n.id)} appears twice; the first wins` });
      continue;
    }
    const definition = n.action_ref ? registry.get(n.action_ref) : undefined;
    const compiled = new NodeImpl(n, definition, kindModule);
    nodes.set(n.id, compiled);
    if (compiled.broken) {
      broken.push({ nodeId: n.id, actionRef: n.action_ref as string });
      warnings.push({ code: 'BROKEN_NODE', nodeId: n.id, message: `node ${JSON.stringify(n.id)}: action_ref ${JSON.stringify(n.action_ref)} is not registered` });
    }
    for (const w of compiled.configWarnings) warnings.push({ code: w.code, nodeId: n.id, key: w.key, message: w.message });
  }

  const edges = new Map<string, CompiledEdge>();
  const entered = new Set<string>();
  let hasCheckpoints = false;
  (Array.isArray(document.edges) ? document.edges : []).forEach((e, index) => {
    if (!e) return;
    const id = typeof e.id === 'string' && e.id ? e.id : `edge-${index}`;
    const from = nodes.get(e.from);
    const to = nodes.get(e.to);
    if (!from || !to || typeof e.from !== 'string' || typeof e.to !== 'string') {
      warnings.push({ code: 'DANGLING_EDGE', edgeId: id, message: `edge ${JSON.stringify(id)} connects unknown node ${JSON.stringify(from ? e.to : e.from)}; ignored` });
      return;
    }
    const source = typeof e.condition === 'string' ? e.condition : e.condition === undefined || e.condition === null ? '' : String(e.condition);
    let condition: CompiledCondition | undefined;
    if (source.trim() !== '' && source.trim() !== 'true') {
      const c = compile(source);
      if (!c.isDefault) condition = c;
      if (c.parseError) {
        warnings.push({ code: 'CONDITION_PARSE_ERROR', edgeId: id, nodeId: from.id, message: `edge ${JSON.stringify(id)}: ${c.parseError}` });
      }
    }
    const mode: DeliveryMode = e.delivery_mode ?? 'direct';
    if (mode === 'checkpoint') hasCheckpoints = true;
    const compiled: CompiledEdge = Object.freeze({ id, edge: e, from, to, mode, condition });
    edges.set(id, compiled);
    from.outgoing.push(compiled);
    if (mode === 'stream') from.streamsDownstream = true;
    entered.add(to.id);
  });

  const all = [...nodes.values()];
  let starts = all.filter((n) => n.kind === 'start');
  if (starts.length === 0) starts = all.filter((n) => !entered.has(n.id));

  return Object.freeze({
    versionId: options.versionId ?? hashDocument(document),
    document,
    nodes,
    edges,
    starts,
    broken,
    warnings,
    hasCheckpoints,
  });
}

/** A short stable hash of a document (the default version id). */
export function hashDocument(document: FlowDocument): string {
  let text: string;
  try {
    text = JSON.stringify(document);
  } catch {
    // Not JSON (a cycle, a BigInt): no stable hash exists, so the version gets a unique id.
    text = randomUUID();
  }
  return 'v-' + createHash('sha256').update(text).digest('hex').slice(0, 24);
}

function fillDefaults(defaults: Readonly<Record<string, unknown>>, config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const key in defaults) if (out[key] === undefined) out[key] = defaults[key];
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
