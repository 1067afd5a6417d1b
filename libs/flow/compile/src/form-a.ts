import { Document, visit } from 'yaml';
import { MODEL_CODES, PIPELINE_CODES } from './codes';
import {
  type ApiModel,
  type ChannelOperation,
  type Diagnostic,
  type DiagnosticSeverity,
  emptyModel,
  type Extensions,
  type FieldMap,
  HTTP_METHODS,
  type ModelAction,
  type ModelChannel,
  type ModelEntity,
  type ModelEvent,
  type ModelField,
  type ModelFlowGraph,
  type ModelModule,
  type ModelSchedule,
  type ModelServer,
  type ModelWorkflow,
  type ModelWorkflowStep,
} from './model';
import { jsonPointer, parseSource, type ParseSourceOptions, type SourceMap } from './source';

/**
 * Flow definition language, document form A (issue 5 item 3): reader (plain value to IR) and
 * writer (IR to plain value, YAML or JSON text).
 *
 * Keys: the spec's form A table is the minimum; every IR member has a form A key of the same name,
 * so form A carries the whole IR:
 * - top level: `version`, `title`, `description`, `apiVersion`, `servers` (map of name to
 *   {url, protocol, description}), `modules`, `entities`, `events`, `actions`, `workflows`,
 *   `channels`, `schedules`, `flow` (a form B graph: {nodes, edges}), and `x-` keys;
 * - modules: name, description, version, provides, depends_on;
 * - entities: name, description, module, fields;
 * - events: name, description, module, entity_type, action, topic, payload;
 * - actions: name, description, module, kind, method, path, input, output, emits;
 * - workflows: name, description, module, triggers, steps; steps: id, kind, action, event, next, on_error;
 * - channels: name, description, protocol, publish, subscribe; each operation
 *   {event, operationId, groupId, description} (groupId is the Kafka consumer group);
 * - schedules: name, description, cron, action;
 * - fields (entities' `fields`, events' `payload`, actions' `input`/`output`): a map of field name
 *   to {type, required, nullable, format, enum, description, ref, items, fields}; the shorthand
 *   `id: string` means `{type: string}` (also for `items`).
 * Every item (and the top level) may carry `x-` keys; they land in the item's IR `extensions`.
 *
 * Form A versus the `json` / `yaml` formats (the IR serialised as is, `writeIrText`):
 * 1. form A writes `x-` keys inline on their item, the IR writes them under `extensions`;
 * 2. form A writes a field that has nothing but a type in its shorthand (`id: string`);
 * 3. form A leaves out empty sections, the IR always has all seven lists.
 * The reader accepts both shapes (inline `x-` keys and `extensions` objects, shorthand or not), so
 * `readFormA` also reads the IR's JSON and YAML (`readIr` is the same function).
 *
 * Reader problems (wrong shapes, unknown keys) are `FMT` diagnostics with the JSON pointer of the
 * SOURCE item; the reader never throws and drops only what it cannot represent.
 */

export interface ReadResult {
  /** Null when the document is nil (FDL001) or not a mapping (FMT). */
  model: ApiModel | null;
  diagnostics: Diagnostic[];
}

export interface ReadOptions {
  /** Source map of the text the value came from, to fill diagnostics' `position`. */
  map?: SourceMap;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads form A (or the IR serialised as is) from a plain value. */
export function readFormA(value: unknown, options: ReadOptions = {}): ReadResult {
  const r = new Reader(options.map);
  if (value === null || value === undefined) {
    r.report('', 'the document is nil', 'error', 'FDL001');
    return { model: null, diagnostics: r.diagnostics };
  }
  if (!isObj(value)) {
    r.report('', `a form A document must be a mapping, not ${Array.isArray(value) ? 'a list' : typeof value}`, 'error');
    return { model: null, diagnostics: r.diagnostics };
  }
  return { model: r.document(value), diagnostics: r.diagnostics };
}

/** The IR's own JSON/YAML shape is read by the form A reader (it accepts `extensions` objects). */
export const readIr = readFormA;

/** Parses a YAML or JSON text and reads it as form A; positions filled from the text. */
export function parseFormAText(text: string | Uint8Array, options: ParseSourceOptions = {}): ReadResult {
  const parsed = parseSource(text, options);
  if (parsed.diagnostics.length) return { model: null, diagnostics: parsed.diagnostics };
  return readFormA(parsed.value, { map: parsed.map });
}

const TOP_KEYS = ['version', 'title', 'description', 'apiVersion', 'servers', 'modules', 'entities', 'events', 'actions', 'workflows', 'channels', 'schedules', 'flow', 'extensions'];
const MODULE_KEYS = ['name', 'description', 'version', 'provides', 'depends_on', 'extensions'];
const ENTITY_KEYS = ['name', 'description', 'module', 'fields', 'extensions'];
const EVENT_KEYS = ['name', 'description', 'module', 'entity_type', 'action', 'topic', 'payload', 'extensions'];
const ACTION_KEYS = ['name', 'description', 'module', 'kind', 'method', 'path', 'input', 'output', 'emits', 'extensions'];
const WORKFLOW_KEYS = ['name', 'description', 'module', 'triggers', 'steps', 'extensions'];
const STEP_KEYS = ['id', 'kind', 'action', 'event', 'next', 'on_error', 'extensions'];
const CHANNEL_KEYS = ['name', 'description', 'protocol', 'publish', 'subscribe', 'extensions'];
const OPERATION_KEYS = ['event', 'operationId', 'groupId', 'description'];
const SCHEDULE_KEYS = ['name', 'description', 'cron', 'action', 'extensions'];
const SERVER_KEYS = ['url', 'protocol', 'description'];
const FIELD_KEYS = ['type', 'required', 'nullable', 'format', 'enum', 'description', 'ref', 'items', 'fields', 'extensions'];

class Reader {
  readonly diagnostics: Diagnostic[] = [];

  constructor(private readonly map?: SourceMap) {}

  report(path: string, message: string, severity: DiagnosticSeverity = PIPELINE_CODES.FMT.severity, code = 'FMT'): void {
    const d: Diagnostic = { code, severity, message, path };
    const position = this.map?.position(path);
    if (position) d.position = position;
    this.diagnostics.push(d);
  }

  document(v: Obj): ApiModel {
    this.unknownKeys(v, TOP_KEYS, '');
    const m = emptyModel();
    if (v.version !== undefined && v.version !== null) {
      // `version: 1.0` unquoted is the number 1 in YAML: write it back as "1.0".
      m.version = typeof v.version === 'number' && Number.isInteger(v.version) ? v.version.toFixed(1) : this.str(v.version, '/version');
    }
    this.optStr(m, 'title', v, '');
    this.optStr(m, 'description', v, '');
    this.optStr(m, 'apiVersion', v, '');
    if (v.servers !== undefined) {
      const servers = this.servers(v.servers, '/servers');
      if (servers) m.servers = servers;
    }
    m.modules = this.list(v.modules, '/modules', (x, p) => this.module(x, p));
    m.entities = this.list(v.entities, '/entities', (x, p) => this.entity(x, p));
    m.events = this.list(v.events, '/events', (x, p) => this.event(x, p));
    m.actions = this.list(v.actions, '/actions', (x, p) => this.action(x, p));
    m.workflows = this.list(v.workflows, '/workflows', (x, p) => this.workflow(x, p));
    m.channels = this.list(v.channels, '/channels', (x, p) => this.channel(x, p));
    m.schedules = this.list(v.schedules, '/schedules', (x, p) => this.schedule(x, p));
    if (v.flow !== undefined) {
      const flow = this.flow(v.flow, '/flow');
      if (flow) m.flow = flow;
    }
    this.extensions(m, v, '');
    return m;
  }

  private module(v: Obj, p: string): ModelModule {
    this.unknownKeys(v, MODULE_KEYS, p);
    const m: ModelModule = { name: this.name(v, p) };
    this.optStr(m, 'description', v, p);
    if (v.version !== undefined && v.version !== null) m.version = typeof v.version === 'number' && Number.isInteger(v.version) ? v.version.toFixed(1) : this.str(v.version, `${p}/version`);
    this.optList(m, 'provides', v, p);
    this.optList(m, 'depends_on', v, p);
    this.extensions(m, v, p);
    return m;
  }

  private entity(v: Obj, p: string): ModelEntity {
    this.unknownKeys(v, ENTITY_KEYS, p);
    const e: ModelEntity = { name: this.name(v, p), fields: {} };
    this.optStr(e, 'description', v, p);
    this.optStr(e, 'module', v, p);
    e.fields = v.fields === undefined || v.fields === null ? {} : this.fields(v.fields, `${p}/fields`);
    // Keep `fields` after description/module for tidy output order.
    const { fields, ...rest } = e;
    const out: ModelEntity = { ...rest, fields };
    this.extensions(out, v, p);
    return out;
  }

  private event(v: Obj, p: string): ModelEvent {
    this.unknownKeys(v, EVENT_KEYS, p);
    const e: ModelEvent = { name: this.name(v, p) };
    this.optStr(e, 'description', v, p);
    this.optStr(e, 'module', v, p);
    this.optStr(e, 'entity_type', v, p);
    this.optStr(e, 'action', v, p);
    this.optStr(e, 'topic', v, p);
    if (v.payload !== undefined && v.payload !== null) e.payload = this.fields(v.payload, `${p}/payload`);
    this.extensions(e, v, p);
    return e;
  }

  private action(v: Obj, p: string): ModelAction {
    this.unknownKeys(v, ACTION_KEYS, p);
    const a: ModelAction = { name: this.name(v, p) };
    this.optStr(a, 'description', v, p);
    this.optStr(a, 'module', v, p);
    if (v.kind !== undefined && v.kind !== null) {
      const kind = this.str(v.kind, `${p}/kind`);
      if (kind === 'command' || kind === 'query' || kind === 'transform') a.kind = kind;
      else this.report(`${p}/kind`, `action "${a.name}": kind "${kind}" is not command, query or transform; ignored`);
    }
    if (v.method !== undefined && v.method !== null) {
      const method = this.str(v.method, `${p}/method`).toUpperCase();
      if ((HTTP_METHODS as readonly string[]).includes(method)) a.method = method as ModelAction['method'];
      else this.report(`${p}/method`, `action "${a.name}": method "${method}" is not one of ${HTTP_METHODS.join(', ')}`, MODEL_CODES.HTTP_METHOD.severity, 'HTTP_METHOD');
    }
    this.optStr(a, 'path', v, p);
    if (v.input !== undefined && v.input !== null) a.input = this.fields(v.input, `${p}/input`);
    if (v.output !== undefined && v.output !== null) a.output = this.fields(v.output, `${p}/output`);
    this.optList(a, 'emits', v, p);
    this.extensions(a, v, p);
    return a;
  }

  private workflow(v: Obj, p: string): ModelWorkflow {
    this.unknownKeys(v, WORKFLOW_KEYS, p);
    const w: ModelWorkflow = { name: this.name(v, p), steps: [] };
    this.optStr(w, 'description', v, p);
    this.optStr(w, 'module', v, p);
    this.optList(w, 'triggers', v, p);
    const steps = this.list(v.steps, `${p}/steps`, (x, sp) => this.step(x, sp));
    const { steps: _omit, ...rest } = w;
    const out: ModelWorkflow = { ...rest, steps };
    this.extensions(out, v, p);
    return out;
  }

  private step(v: Obj, p: string): ModelWorkflowStep {
    this.unknownKeys(v, STEP_KEYS, p);
    // A missing id is kept as '' for the validator to report (FDL020).
    const s: ModelWorkflowStep = { id: v.id === undefined || v.id === null ? '' : this.str(v.id, `${p}/id`) };
    if (v.kind !== undefined && v.kind !== null) {
      const kind = this.str(v.kind, `${p}/kind`);
      if (kind === 'action' || kind === 'emit' || kind === 'end') s.kind = kind;
      else this.report(`${p}/kind`, `step "${s.id}": kind "${kind}" is not action, emit or end; ignored`);
    }
    this.optStr(s, 'action', v, p);
    this.optStr(s, 'event', v, p);
    this.optStr(s, 'next', v, p);
    this.optStr(s, 'on_error', v, p);
    this.extensions(s, v, p);
    return s;
  }

  private channel(v: Obj, p: string): ModelChannel {
    this.unknownKeys(v, CHANNEL_KEYS, p);
    const c: ModelChannel = { name: this.name(v, p) };
    this.optStr(c, 'description', v, p);
    this.optStr(c, 'protocol', v, p);
    for (const dir of ['publish', 'subscribe'] as const) {
      if (v[dir] === undefined || v[dir] === null) continue;
      const op = this.operation(v[dir], `${p}/${dir}`);
      if (op) c[dir] = op;
    }
    this.extensions(c, v, p);
    return c;
  }

  private operation(v: unknown, p: string): ChannelOperation | undefined {
    if (typeof v === 'string') return { event: v };
    if (!isObj(v)) {
      this.report(p, 'a channel operation must be a mapping {event, operationId, groupId, description}; ignored');
      return undefined;
    }
    this.unknownKeys(v, OPERATION_KEYS, p);
    const op: ChannelOperation = { event: v.event === undefined || v.event === null ? '' : this.str(v.event, `${p}/event`) };
    if (v.event === undefined || v.event === null) this.report(`${p}/event`, 'a channel operation names no event');
    this.optStr(op, 'operationId', v, p);
    this.optStr(op, 'groupId', v, p);
    this.optStr(op, 'description', v, p);
    return op;
  }

  private schedule(v: Obj, p: string): ModelSchedule {
    this.unknownKeys(v, SCHEDULE_KEYS, p);
    const s: ModelSchedule = { name: this.name(v, p), cron: '' };
    this.optStr(s, 'description', v, p);
    if (v.cron === undefined || v.cron === null) this.report(`${p}/cron`, `schedule "${s.name}" has no cron expression`);
    else s.cron = this.str(v.cron, `${p}/cron`);
    const { cron, ...rest } = s;
    const out: ModelSchedule = { ...rest, cron };
    this.optStr(out, 'action', v, p);
    this.extensions(out, v, p);
    return out;
  }

  private servers(v: unknown, p: string): Record<string, ModelServer> | undefined {
    if (!isObj(v)) {
      this.report(p, 'servers must be a map of server name to {url, protocol, description}; ignored');
      return undefined;
    }
    const out: Record<string, ModelServer> = {};
    for (const [name, s] of Object.entries(v)) {
      const sp = `${p}${jsonPointer(name)}`;
      if (this.reservedName(name, sp)) continue;
      if (typeof s === 'string') {
        out[name] = { url: s };
        continue;
      }
      if (!isObj(s)) {
        this.report(sp, `server "${name}" must be a mapping; ignored`);
        continue;
      }
      this.unknownKeys(s, SERVER_KEYS, sp);
      if (s.url === undefined || s.url === null) this.report(`${sp}/url`, `server "${name}" has no url`);
      const server: ModelServer = { url: s.url === undefined || s.url === null ? '' : this.str(s.url, `${sp}/url`) };
      this.optStr(server, 'protocol', s, sp);
      this.optStr(server, 'description', s, sp);
      out[name] = server;
    }
    return out;
  }

  private flow(v: unknown, p: string): ModelFlowGraph | undefined {
    if (!isObj(v) || !isObj(v.nodes ?? {}) || !Array.isArray(v.edges ?? [])) {
      this.report(p, 'flow must be a form B graph {nodes: map, edges: list}; ignored');
      return undefined;
    }
    const nodes: ModelFlowGraph['nodes'] = {};
    for (const [name, n] of Object.entries((v.nodes ?? {}) as Obj)) {
      if (this.reservedName(name, `${p}/nodes${jsonPointer(name)}`)) continue;
      if (!isObj(n)) {
        this.report(`${p}/nodes${jsonPointer(name)}`, `flow node "${name}" must be a mapping; ignored`);
        continue;
      }
      nodes[name] = clone(n) as ModelFlowGraph['nodes'][string];
    }
    const edges: ModelFlowGraph['edges'] = [];
    ((v.edges ?? []) as unknown[]).forEach((e, i) => {
      if (!isObj(e) || typeof e.from !== 'string' || typeof e.to !== 'string') {
        this.report(`${p}/edges/${i}`, 'a flow edge must be a mapping with string from and to; ignored');
        return;
      }
      edges.push(clone(e) as ModelFlowGraph['edges'][number]);
    });
    return { nodes, edges };
  }

  /** A field map; each value a field object or a type name (shorthand). */
  fields(v: unknown, p: string): FieldMap {
    if (!isObj(v)) {
      this.report(p, 'fields must be a map of field name to a type or {type, ...}; ignored');
      return {};
    }
    const out: FieldMap = {};
    for (const [name, f] of Object.entries(v)) {
      if (this.reservedName(name, `${p}${jsonPointer(name)}`)) continue;
      out[name] = this.field(f, `${p}${jsonPointer(name)}`, name);
    }
    return out;
  }

  private field(v: unknown, p: string, name: string): ModelField {
    if (typeof v === 'string') return { type: v };
    if (!isObj(v)) {
      this.report(p, `field "${name}" must be a type name or a mapping {type, ...}; read as type any`);
      return { type: 'any' };
    }
    this.unknownKeys(v, FIELD_KEYS, p);
    let type = 'any';
    if (v.type === undefined || v.type === null) this.report(`${p}/type`, `field "${name}" has no type; read as type any`);
    else type = this.str(v.type, `${p}/type`);
    const f: ModelField = { type };
    if (v.required !== undefined && v.required !== null) f.required = this.bool(v.required, `${p}/required`);
    if (v.nullable !== undefined && v.nullable !== null) f.nullable = this.bool(v.nullable, `${p}/nullable`);
    this.optStr(f, 'format', v, p);
    if (v.enum !== undefined && v.enum !== null) {
      if (!Array.isArray(v.enum)) this.report(`${p}/enum`, `field "${name}": enum must be a list; ignored`);
      else {
        const values = v.enum.filter((x): x is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof x));
        if (values.length !== v.enum.length) this.report(`${p}/enum`, `field "${name}": enum values must be strings, numbers or booleans; others dropped`);
        f.enum = values;
      }
    }
    this.optStr(f, 'description', v, p);
    this.optStr(f, 'ref', v, p);
    if (v.items !== undefined && v.items !== null) f.items = this.field(v.items, `${p}/items`, `${name}[]`);
    if (v.fields !== undefined && v.fields !== null) f.fields = this.fields(v.fields, `${p}/fields`);
    this.extensions(f, v, p);
    return f;
  }

  private list<T>(v: unknown, p: string, item: (x: Obj, path: string) => T): T[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.report(p, `${p.slice(p.lastIndexOf('/') + 1)} must be a list; ignored`);
      return [];
    }
    const out: T[] = [];
    v.forEach((x, i) => {
      if (isObj(x)) out.push(item(x, `${p}/${i}`));
      else this.report(`${p}/${i}`, 'a list entry must be a mapping; ignored');
    });
    return out;
  }

  private name(v: Obj, p: string): string {
    if (v.name === undefined || v.name === null) {
      this.report(`${p}/name`, 'the entry has no name');
      return '';
    }
    return this.str(v.name, `${p}/name`);
  }

  private str(v: unknown, p: string): string {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    this.report(p, `expected a string, got ${Array.isArray(v) ? 'a list' : typeof v}; read as empty`);
    return '';
  }

  private bool(v: unknown, p: string): boolean {
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    this.report(p, `expected true or false, got ${JSON.stringify(v)}; read as false`);
    return false;
  }

  private optStr<T extends object>(target: T, key: keyof T & string, v: Obj, p: string): void {
    const x = v[key];
    if (x === undefined || x === null) return;
    (target as Record<string, unknown>)[key] = this.str(x, `${p}/${key}`);
  }

  private optList<T extends object>(target: T, key: keyof T & string, v: Obj, p: string): void {
    let x = v[key];
    if (x === undefined || x === null) return;
    if (typeof x === 'string') x = [x];
    if (!Array.isArray(x)) {
      this.report(`${p}/${key}`, `${key} must be a list of names; ignored`);
      return;
    }
    const out: string[] = [];
    x.forEach((n, i) => {
      if (typeof n === 'string' || typeof n === 'number') out.push(String(n));
      else this.report(`${p}/${key}/${i}`, `${key} entries must be names; entry dropped`);
    });
    (target as Record<string, unknown>)[key] = out;
  }

  /** Inline `x-` keys and an `extensions` object (the IR shape), merged in document order. */
  private extensions(target: { extensions?: Extensions }, v: Obj, p: string): void {
    const ext: Record<string, unknown> = {};
    if (v.extensions !== undefined && v.extensions !== null) {
      if (!isObj(v.extensions)) this.report(`${p}/extensions`, 'extensions must be a map of x- keys; ignored');
      else
        for (const [k, x] of Object.entries(v.extensions)) {
          if (k.startsWith('x-')) ext[k] = clone(x);
          else this.report(`${p}/extensions${jsonPointer(k)}`, `extension key "${k}" does not start with x-; ignored`);
        }
    }
    for (const [k, x] of Object.entries(v)) if (k.startsWith('x-')) ext[k] = clone(x);
    if (Object.keys(ext).length) target.extensions = ext as Extensions;
  }

  /** `__proto__` cannot be a map key of a plain object without changing its prototype. */
  private reservedName(name: string, p: string): boolean {
    if (name !== '__proto__') return false;
    this.report(p, 'the name "__proto__" is reserved; entry ignored');
    return true;
  }

  private unknownKeys(v: Obj, known: string[], p: string): void {
    for (const k of Object.keys(v)) {
      if (!k.startsWith('x-') && !known.includes(k)) this.report(`${p}${jsonPointer(k)}`, `unknown key "${k}" ignored`);
    }
  }
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/* ----------------------------------------------------------------------------------------------
 * Writer
 * ---------------------------------------------------------------------------------------------- */

type Out = Record<string, unknown>;

function put(out: Out, key: string, v: unknown): void {
  if (v !== undefined) out[key] = v;
}

function putExt(out: Out, ext: Extensions | undefined): void {
  if (ext) for (const [k, v] of Object.entries(ext)) out[k] = clone(v);
}

/** A field in form A: the shorthand `type` string when it carries nothing else. */
function writeField(f: ModelField): unknown {
  const keys = Object.keys(f).filter((k) => (f as unknown as Out)[k] !== undefined);
  if (keys.length === 1 && keys[0] === 'type') return f.type;
  const out: Out = { type: f.type };
  put(out, 'required', f.required);
  put(out, 'nullable', f.nullable);
  put(out, 'format', f.format);
  put(out, 'enum', f.enum ? [...f.enum] : undefined);
  put(out, 'description', f.description);
  put(out, 'ref', f.ref);
  if (f.items) out.items = writeField(f.items);
  if (f.fields) out.fields = writeFields(f.fields);
  putExt(out, f.extensions);
  return out;
}

function writeFields(fields: FieldMap): Out {
  const out: Out = {};
  for (const [name, f] of Object.entries(fields)) out[name] = writeField(f);
  return out;
}

function writeOperation(op: ChannelOperation): Out {
  const out: Out = { event: op.event };
  put(out, 'operationId', op.operationId);
  put(out, 'groupId', op.groupId);
  put(out, 'description', op.description);
  return out;
}

/** The IR as a form A plain object (see the key list at the top of this file). */
export function writeFormA(model: ApiModel): Out {
  const out: Out = {};
  put(out, 'version', model.version);
  put(out, 'title', model.title);
  put(out, 'description', model.description);
  put(out, 'apiVersion', model.apiVersion);
  if (model.servers) {
    const servers: Out = {};
    for (const [name, s] of Object.entries(model.servers)) {
      const so: Out = { url: s.url };
      put(so, 'protocol', s.protocol);
      put(so, 'description', s.description);
      servers[name] = so;
    }
    out.servers = servers;
  }
  if (model.modules.length)
    out.modules = model.modules.map((m) => {
      const o: Out = { name: m.name };
      put(o, 'description', m.description);
      put(o, 'version', m.version);
      put(o, 'provides', m.provides ? [...m.provides] : undefined);
      put(o, 'depends_on', m.depends_on ? [...m.depends_on] : undefined);
      putExt(o, m.extensions);
      return o;
    });
  if (model.entities.length)
    out.entities = model.entities.map((e) => {
      const o: Out = { name: e.name };
      put(o, 'description', e.description);
      put(o, 'module', e.module);
      o.fields = writeFields(e.fields);
      putExt(o, e.extensions);
      return o;
    });
  if (model.events.length)
    out.events = model.events.map((e) => {
      const o: Out = { name: e.name };
      put(o, 'description', e.description);
      put(o, 'module', e.module);
      put(o, 'entity_type', e.entity_type);
      put(o, 'action', e.action);
      put(o, 'topic', e.topic);
      if (e.payload) o.payload = writeFields(e.payload);
      putExt(o, e.extensions);
      return o;
    });
  if (model.actions.length)
    out.actions = model.actions.map((a) => {
      const o: Out = { name: a.name };
      put(o, 'description', a.description);
      put(o, 'module', a.module);
      put(o, 'kind', a.kind);
      put(o, 'method', a.method);
      put(o, 'path', a.path);
      if (a.input) o.input = writeFields(a.input);
      if (a.output) o.output = writeFields(a.output);
      put(o, 'emits', a.emits ? [...a.emits] : undefined);
      putExt(o, a.extensions);
      return o;
    });
  if (model.workflows.length)
    out.workflows = model.workflows.map((w) => {
      const o: Out = { name: w.name };
      put(o, 'description', w.description);
      put(o, 'module', w.module);
      put(o, 'triggers', w.triggers ? [...w.triggers] : undefined);
      o.steps = w.steps.map((s) => {
        const so: Out = { id: s.id };
        put(so, 'kind', s.kind);
        put(so, 'action', s.action);
        put(so, 'event', s.event);
        put(so, 'next', s.next);
        put(so, 'on_error', s.on_error);
        putExt(so, s.extensions);
        return so;
      });
      putExt(o, w.extensions);
      return o;
    });
  if (model.channels.length)
    out.channels = model.channels.map((c) => {
      const o: Out = { name: c.name };
      put(o, 'description', c.description);
      put(o, 'protocol', c.protocol);
      if (c.publish) o.publish = writeOperation(c.publish);
      if (c.subscribe) o.subscribe = writeOperation(c.subscribe);
      putExt(o, c.extensions);
      return o;
    });
  if (model.schedules.length)
    out.schedules = model.schedules.map((s) => {
      const o: Out = { name: s.name };
      put(o, 'description', s.description);
      o.cron = s.cron;
      put(o, 'action', s.action);
      putExt(o, s.extensions);
      return o;
    });
  if (model.flow) out.flow = clone(model.flow);
  putExt(out, model.extensions);
  return out;
}

/** Words a YAML 1.1 reader (PyYAML, SnakeYAML, go-yaml v2, ...) takes as booleans, in any case. */
const YAML11_BOOLEAN = /^(y|n|yes|no|on|off|true|false)$/i;

/**
 * YAML or JSON text of a plain value: JSON with 2-space indent, YAML 1.2 block style, no aliases.
 * In YAML 1.2 `on`, `off`, `yes`, `no`, `y` and `n` are plain strings, but many readers of the
 * output (AsyncAPI and OpenAPI tools among them) still read YAML 1.1, where they are booleans: keys
 * and values spelled so are quoted, so every reader gets the string back.
 */
export function stringifyDocument(value: unknown, format: 'json' | 'yaml'): string {
  if (format === 'json') return JSON.stringify(value, null, 2) + '\n';
  const doc = new Document(value, { version: '1.2', aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && YAML11_BOOLEAN.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0 });
}

/** Form A text of the IR. */
export function writeFormAText(model: ApiModel, format: 'json' | 'yaml' = 'yaml'): string {
  return stringifyDocument(writeFormA(model), format);
}

/** The `json` / `yaml` formats: the IR serialised as is. Read back with `readIr` after `parseSource`. */
export function writeIrText(model: ApiModel, format: 'json' | 'yaml'): string {
  return stringifyDocument(model, format);
}
