/**
 * Flow definition language form B ↔ ApiModel (spec: flows-compile-search-hub.md "Flow definition
 * language, document form B"). `@flowplane/flow/ir` converts form B to and from the runtime's flow
 * document; this module maps it to and from the compile IR.
 *
 * Reader (`readFormB`):
 * - `info.title`, `info.version`, `info.description` → title, apiVersion, description; the model
 *   gets form A version "1.0"; `servers` → servers.
 * - The graph is kept as `model.flow`: every node as it is (operationId, kind, summary, `x-` keys)
 *   and every edge as it is, in order.
 * - Each node is also an action: name = node key, description = summary, `x-operationId` and
 *   `x-node-kind` extensions (form-B node kinds source, action, llm are no IR action kinds).
 * - Each `components.packets` schema is an entity (fieldsFromSchema of it; description). A packet
 *   the entity does not reproduce exactly (other keywords, nested `$ref`s, `x-` keys) is also kept
 *   verbatim in the entity extension `x-packet`.
 * - Top-level `x-` keys (`x-id`, `x-name`, `x-meta`...) are model extensions. What else the model
 *   has no place for (a `flowdef` other than the string "1.0", `x-` keys of `info` and
 *   `components`, servers the model does not reproduce, an empty `components`) is kept in the model
 *   extension `x-form-b`, so that form B → IR → form B is lossless.
 *
 * Writer (`writeFormB`): the reverse. A model without `flow` gets a graph derived from its
 * workflows: for each workflow, each trigger is a source node `on_<event>` (operationId
 * `svc/event-source`, `x-config: {eventName: <event topic>, groupID: <workflow name>}`) with an
 * edge to the first step; each step is a node (an action step runs the action: operationId = the
 * action name, summary = the action's description; an emit step runs `svc/emit-event` with
 * `x-config: {topic}`; an end step is an action node without operationId and without outgoing
 * edge); `next` is an edge, `on_error` an edge from the `Error` port (`x-port: Error`). Node keys
 * are the step ids, prefixed `<workflow>.` when the model has more than one workflow. Packets are
 * the entities (fieldsToSchema, or the kept `x-packet`).
 */
import { DELIVERY_MODES, FLOWDEF_VERSION, SPEC_NODE_KINDS, type SpecDocument, type SpecEdge, type SpecNode, type SpecServer } from '@flowplane/flow/ir';
import { MODEL_CODES, type ModelCode } from './codes';
import { fieldsToSchema, type JsonSchema } from './field-types';
import { cloneJson, extensionsOf, fmt, isRecord, pointer, sameJson, uniqueName, withPositions, type FormatReadOptions, type FormatReadResult, type FormatWriteResult } from './format-util';
import { eventTopic } from './asyncapi';
import { fieldOf } from './schema-reader';
import { emptyModel, type ApiModel, type Diagnostic, type Extensions, type ModelEntity, type ModelFlowGraph, type ModelServer } from './model';

/** Leftovers of a form-B document the model has no member for (model extension `x-form-b`). */
interface FormBRest {
  flowdef?: unknown;
  info?: Record<string, unknown>;
  servers?: unknown;
  components?: Record<string, unknown>;
  /** `components` was present without packets (`absent`) or with an empty packets map (`empty`). */
  packets?: 'absent' | 'empty';
}

const REST_KEY = 'x-form-b';
const PACKET_KEY = 'x-packet';
const EVENT_SOURCE = 'svc/event-source';
const EMIT_EVENT = 'svc/emit-event';
const ERROR_PORT = 'Error';
const KNOWN_ROOT = ['flowdef', 'info', 'servers', 'nodes', 'edges', 'components'];

/** The packet schema an entity is written as (without the kept `x-packet`). */
function packetOf(e: ModelEntity): JsonSchema {
  const body = fieldsToSchema(e.fields);
  return e.description !== undefined ? { type: 'object', description: e.description, ...body } : body;
}

export function readFormB(source: unknown, options: FormatReadOptions = {}): FormatReadResult {
  const diagnostics: Diagnostic[] = [];
  const model = emptyModel({ version: '1.0' });
  if (!isRecord(source)) {
    diagnostics.push(fmt('error', '', 'a form B document must be a mapping'));
    return { model, diagnostics: withPositions(diagnostics, options.map) };
  }
  const rest: FormBRest = {};
  if (source.flowdef !== FLOWDEF_VERSION) {
    rest.flowdef = cloneJson(source.flowdef);
    if (String(source.flowdef) !== FLOWDEF_VERSION) diagnostics.push(fmt('warning', '/flowdef', `flowdef "${String(source.flowdef)}" is not ${FLOWDEF_VERSION}`));
  }
  for (const k of Object.keys(source)) if (!KNOWN_ROOT.includes(k) && !k.startsWith('x-')) diagnostics.push(fmt('warning', pointer(k), `unknown key "${k}" ignored`));

  const info = isRecord(source.info) ? source.info : {};
  if (typeof info.title === 'string') model.title = info.title;
  if (typeof info.version === 'string') model.apiVersion = info.version;
  if (typeof info.description === 'string') model.description = info.description;
  const infoExt = extensionsOf(info);
  if (infoExt) rest.info = infoExt;

  if (source.servers !== undefined) {
    const servers: Record<string, ModelServer> = {};
    for (const [name, s] of Object.entries(isRecord(source.servers) ? source.servers : {})) {
      if (isRecord(s) && typeof s.url === 'string') {
        servers[name] = { url: s.url, ...(typeof s.protocol === 'string' && { protocol: s.protocol }), ...(typeof s.description === 'string' && { description: s.description }) };
      }
    }
    model.servers = servers;
    if (!sameJson(serversOf(servers), source.servers)) rest.servers = cloneJson(source.servers);
  }

  const nodes: ModelFlowGraph['nodes'] = {};
  for (const [key, n] of Object.entries(isRecord(source.nodes) ? source.nodes : {})) {
    const at = pointer('nodes', key);
    if (!isRecord(n)) {
      diagnostics.push(fmt('warning', at, 'a node must be a mapping; left out'));
      continue;
    }
    if (n.kind === undefined) modelError(diagnostics, 'NODE_KIND', `${at}/kind`, `node "${key}" has no kind (one of ${SPEC_NODE_KINDS.join(', ')})`);
    else if (!(SPEC_NODE_KINDS as readonly unknown[]).includes(n.kind)) modelError(diagnostics, 'NODE_KIND', `${at}/kind`, `node "${key}": kind ${JSON.stringify(n.kind)} is not one of ${SPEC_NODE_KINDS.join(', ')}`);
    nodes[key] = cloneJson(n) as ModelFlowGraph['nodes'][string];
    const ext: Extensions = {};
    if (n.operationId !== undefined) ext['x-operationId'] = n.operationId;
    if (n.kind !== undefined) ext['x-node-kind'] = n.kind;
    model.actions.push({ name: key, ...(typeof n.summary === 'string' && { description: n.summary }), ...(Object.keys(ext).length && { extensions: ext }) });
  }
  const edges: ModelFlowGraph['edges'] = [];
  (Array.isArray(source.edges) ? source.edges : []).forEach((e, i) => {
    if (isRecord(e) && typeof e.from === 'string' && typeof e.to === 'string') {
      edges.push(cloneJson(e) as ModelFlowGraph['edges'][number]);
      for (const end of ['from', 'to'] as const) {
        const name = e[end] as string;
        if (!Object.prototype.hasOwnProperty.call(nodes, name)) modelError(diagnostics, 'UNKNOWN_NODE', pointer('edges', i, end), `edge ${i} ${end === 'from' ? 'leaves' : 'enters'} "${name}", which is not a node of this document`);
      }
      const mode = isRecord(e.delivery) ? e.delivery.mode : undefined;
      if (e.delivery !== undefined && !(DELIVERY_MODES as readonly unknown[]).includes(mode)) {
        modelError(diagnostics, 'DELIVERY_MODE', isRecord(e.delivery) ? pointer('edges', i, 'delivery', 'mode') : pointer('edges', i, 'delivery'), `edge ${i}: delivery mode ${JSON.stringify(mode ?? null)} is not one of ${DELIVERY_MODES.join(', ')}`);
      }
    } else diagnostics.push(fmt('warning', pointer('edges', i), 'an edge needs string "from" and "to"; left out'));
  });
  model.flow = { nodes, edges };

  if (source.components !== undefined) {
    const components = isRecord(source.components) ? source.components : {};
    const compExt = extensionsOf(components);
    if (compExt) rest.components = compExt;
    if (components.packets === undefined) rest.packets = 'absent';
    else if (isRecord(components.packets) && Object.keys(components.packets).length === 0) rest.packets = 'empty';
    for (const [name, p] of Object.entries(isRecord(components.packets) ? components.packets : {})) {
      const entity: ModelEntity = { name, fields: {} };
      if (isRecord(p) && typeof p.description === 'string') entity.description = p.description;
      const field = fieldOf({ ...(isRecord(p) ? p : {}), type: 'object' });
      entity.fields = field.fields ?? {};
      if (!sameJson(packetOf(entity), p)) entity.extensions = { [PACKET_KEY]: cloneJson(p) };
      model.entities.push(entity);
    }
  }

  const packets = isRecord(source.components) && isRecord(source.components.packets) ? source.components.packets : {};
  (Array.isArray(source.edges) ? source.edges : []).forEach((e, i) => {
    if (isRecord(e) && typeof e.packet === 'string' && e.packet !== '' && !Object.prototype.hasOwnProperty.call(packets, e.packet)) {
      modelError(diagnostics, 'UNKNOWN_PACKET', pointer('edges', i, 'packet'), `edge ${i}: packet "${e.packet}" is not defined in components.packets`);
    }
  });

  const ext: Extensions = extensionsOf(source) ?? {};
  if (Object.keys(rest).length) ext[REST_KEY] = rest;
  if (Object.keys(ext).length) model.extensions = ext;
  return { model, diagnostics: withPositions(diagnostics, options.map) };
}

function modelError(diagnostics: Diagnostic[], code: ModelCode, path: string, message: string): void {
  diagnostics.push({ code, severity: MODEL_CODES[code].severity, message, path });
}

function serversOf(servers: Record<string, ModelServer>): Record<string, SpecServer> {
  const out: Record<string, SpecServer> = {};
  for (const [name, s] of Object.entries(servers)) {
    out[name] = { url: s.url, ...(s.protocol !== undefined && { protocol: s.protocol }), ...(s.description !== undefined && { description: s.description }) };
  }
  return out;
}

export function writeFormB(model: ApiModel): FormatWriteResult<SpecDocument> {
  const diagnostics: Diagnostic[] = [];
  const rest = (isRecord(model.extensions?.[REST_KEY]) ? model.extensions?.[REST_KEY] : {}) as FormBRest;
  const info: SpecDocument['info'] = { title: model.title ?? 'Untitled flow' };
  if (model.apiVersion !== undefined) info.version = model.apiVersion;
  if (model.description !== undefined) info.description = model.description;
  Object.assign(info, cloneJson(rest.info ?? {}));

  const doc = { flowdef: rest.flowdef !== undefined ? cloneJson(rest.flowdef) : FLOWDEF_VERSION, info } as SpecDocument;
  if (rest.servers !== undefined) doc.servers = cloneJson(rest.servers) as SpecDocument['servers'];
  else if (model.servers !== undefined) doc.servers = serversOf(model.servers);

  const graph = model.flow ? cloneJson(model.flow) : graphOfWorkflows(model, diagnostics);
  doc.nodes = graph.nodes as Record<string, SpecNode>;
  doc.edges = graph.edges as SpecEdge[];

  if (model.entities.length || rest.components || rest.packets) {
    const components: NonNullable<SpecDocument['components']> = {};
    if (model.entities.length || rest.packets === 'empty') {
      const packets: Record<string, JsonSchema> = {};
      for (const e of model.entities) {
        const kept = e.extensions?.[PACKET_KEY];
        packets[e.name] = kept !== undefined ? (cloneJson(kept) as JsonSchema) : packetOf(e);
      }
      components.packets = packets;
    }
    Object.assign(components, cloneJson(rest.components ?? {}));
    doc.components = components;
  }
  for (const [k, v] of Object.entries(model.extensions ?? {})) if (k !== REST_KEY) (doc as unknown as Record<string, unknown>)[k] = cloneJson(v);
  return { document: doc, diagnostics };
}

/** The graph of the workflows (see the module comment). */
export function graphOfWorkflows(model: ApiModel, diagnostics: Diagnostic[] = []): ModelFlowGraph {
  const nodes: ModelFlowGraph['nodes'] = {};
  const edges: ModelFlowGraph['edges'] = [];
  const used = new Set<string>();
  const qualify = model.workflows.length > 1;
  const key = (base: string): string => {
    const k = uniqueName(base, used);
    used.add(k);
    return k;
  };
  model.workflows.forEach((w, wi) => {
    const prefix = qualify ? `${w.name}.` : '';
    const keyOf = new Map<string, string>();
    for (const s of w.steps) if (!keyOf.has(s.id)) keyOf.set(s.id, key(`${prefix}${s.id}`));
    const first = w.steps[0] ? keyOf.get(w.steps[0].id) : undefined;
    for (const t of w.triggers ?? []) {
      const ev = model.events.find((e) => e.name === t);
      const k = key(`${prefix}on_${t}`);
      nodes[k] = { operationId: EVENT_SOURCE, kind: 'source', summary: `Starts ${w.name} on ${t}`, 'x-config': { eventName: ev ? eventTopic(ev) : t, groupID: w.name } };
      if (first !== undefined) edges.push({ from: k, to: first });
    }
    w.steps.forEach((s, si) => {
      const at = pointer('workflows', wi, 'steps', si);
      const k = keyOf.get(s.id) as string;
      if (nodes[k] !== undefined) {
        diagnostics.push(fmt('warning', at, `duplicate step id "${s.id}" left out of the graph`));
        return;
      }
      const node: ModelFlowGraph['nodes'][string] = { kind: 'action' };
      if (s.kind === 'emit' || (s.kind === undefined && s.event !== undefined && s.action === undefined)) {
        const ev = model.events.find((e) => e.name === s.event);
        node.operationId = EMIT_EVENT;
        node['x-config'] = { topic: ev ? eventTopic(ev) : (s.event ?? '') };
      } else if (s.kind !== 'end' && s.action !== undefined) {
        node.operationId = s.action;
        const action = model.actions.find((a) => a.name === s.action);
        if (action?.description) node.summary = action.description;
      }
      nodes[k] = node;
      for (const [target, port] of [[s.next, undefined], [s.on_error, ERROR_PORT]] as const) {
        if (target === undefined) continue;
        const to = keyOf.get(target);
        if (to === undefined) diagnostics.push(fmt('warning', `${at}/${port ? 'on_error' : 'next'}`, `unknown step "${target}"; no edge written`));
        else edges.push({ from: k, to, ...(port && { 'x-port': port }) });
      }
    });
  });
  return { nodes, edges };
}
