/**
 * Business model document ↔ ApiModel (spec: flows-compile-search-hub.md "Business model
 * document", "Rules: format conversion" item 3).
 *
 * Document: `title`, `version`, optional `description`, `domains: [{name, description,
 * entities: [{name, description?, fields: [field names]}], events: [{name, description?,
 * entity_type, action, topic?}], processes: [{name, description?, triggers: [event names],
 * steps: [step names]}]}]`, optional `actors: [{name, kind: person | system, description}]`.
 *
 * Reader (`readBusinessModel`): each domain is a module and owns (`module`) its entities, events
 * and workflows. An entity field is a name (type `any`), or typed: `{name, type, required?,
 * description?, enum?}` or the one-entry map `{<name>: <type>}`. Each process is a workflow whose
 * steps are steps of kind `action` with id and action = the step name (a repeated name gets an id
 * suffix `_2`...), chained by `next` in list order; every step name that is no action yet becomes
 * an action `{name, module, kind: command}` so that the model validates. `version` is the
 * document's own version (`apiVersion`; the model gets form A version "1.0"); actors, which the
 * IR has no section for, are kept verbatim in the model extension `x-actors`. `x-` keys of any
 * item are kept as extensions; other unknown keys give a warning.
 *
 * Writer (`writeBusinessModel`): when the model has modules, each module is a domain with the
 * entities, events and workflows whose `module` names it (items of no known module are left out,
 * a warning each); otherwise one domain named after the title (default "default") holds every
 * entity, event and workflow. Process steps are the steps' action (else event, else id) in list
 * order, `end` steps left out. Field lists are names only, as the spec describes, unless
 * `typedFields` is set: then a field whose type is not `any` is written `{name, type}` (with
 * `required` when set), which the reader reads back.
 */
import {
  asString,
  child,
  cloneJson,
  extensionsOf,
  fmt,
  isRecord,
  pointer,
  stringList,
  uniqueName,
  withPositions,
  type FormatReadOptions,
  type FormatReadResult,
  type FormatWriteResult,
} from './format-util';
import { emptyModel, type ApiModel, type Diagnostic, type FieldMap, type ModelField, type ModelWorkflow } from './model';

export interface BizField {
  name: string;
  type?: string;
  required?: boolean;
  description?: string;
  enum?: Array<string | number | boolean>;
}

export interface BizEntity {
  name: string;
  description?: string;
  fields: Array<string | BizField>;
}

export interface BizEvent {
  name: string;
  description?: string;
  entity_type?: string;
  action?: string;
  topic?: string;
}

export interface BizProcess {
  name: string;
  description?: string;
  triggers: string[];
  steps: string[];
}

export interface BizDomain {
  name: string;
  description?: string;
  entities: BizEntity[];
  events: BizEvent[];
  processes: BizProcess[];
}

export interface BizActor {
  name: string;
  kind?: string;
  description?: string;
}

/** The business model document (Spec). */
export interface BusinessModelDocument {
  title: string;
  version: string;
  description?: string;
  domains: BizDomain[];
  actors?: BizActor[];
}

export interface BusinessModelWriteOptions {
  /** Write fields whose type is not `any` as `{name, type}` instead of a bare name. */
  typedFields?: boolean;
}

const ROOT_KEYS = ['title', 'version', 'description', 'domains', 'actors'];
const DOMAIN_KEYS = ['name', 'description', 'entities', 'events', 'processes'];
const ENTITY_KEYS = ['name', 'description', 'fields'];
const EVENT_KEYS = ['name', 'description', 'entity_type', 'action', 'topic'];
const PROCESS_KEYS = ['name', 'description', 'triggers', 'steps'];
const FIELD_KEYS = ['name', 'type', 'required', 'description', 'enum'];

export function readBusinessModel(source: unknown, options: FormatReadOptions = {}): FormatReadResult {
  const diagnostics: Diagnostic[] = [];
  const model = emptyModel({ version: '1.0' });
  const warnUnknown = (obj: Record<string, unknown>, allowed: string[], at: string): void => {
    for (const k of Object.keys(obj)) if (!allowed.includes(k) && !k.startsWith('x-')) diagnostics.push(fmt('warning', child(at, k), `unknown key "${k}" ignored`));
  };
  const named = (item: unknown, at: string, what: string): (Record<string, unknown> & { name: string }) | undefined => {
    if (isRecord(item) && typeof item.name === 'string' && item.name !== '') return item as Record<string, unknown> & { name: string };
    diagnostics.push(fmt('warning', at, `${what} without a name left out`));
    return undefined;
  };
  const list = (value: unknown, at: string): unknown[] => {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    diagnostics.push(fmt('warning', at, 'expected a list; ignored'));
    return [];
  };

  if (!isRecord(source)) {
    diagnostics.push(fmt('error', '', 'a business model document must be a mapping'));
    return { model, diagnostics: withPositions(diagnostics, options.map) };
  }
  warnUnknown(source, ROOT_KEYS, '');
  if (typeof source.title === 'string') model.title = source.title;
  if (typeof source.version === 'string' || typeof source.version === 'number') model.apiVersion = String(source.version);
  if (typeof source.description === 'string') model.description = source.description;
  if (!Array.isArray(source.domains)) diagnostics.push(fmt(source.domains === undefined ? 'warning' : 'error', '/domains', source.domains === undefined ? 'the document has no domains' : '"domains" must be a list'));

  const names = { module: new Set<string>(), entity: new Set<string>(), event: new Set<string>(), workflow: new Set<string>() };
  const fresh = (kind: keyof typeof names, name: string, at: string): boolean => {
    if (names[kind].has(name)) {
      diagnostics.push(fmt('warning', at, `duplicate ${kind} "${name}" left out`));
      return false;
    }
    names[kind].add(name);
    return true;
  };

  (Array.isArray(source.domains) ? source.domains : []).forEach((raw, di) => {
    const at = pointer('domains', di);
    const d = named(raw, at, 'domain');
    if (!d || !fresh('module', d.name, `${at}/name`)) return;
    warnUnknown(d, DOMAIN_KEYS, at);
    const module = d.name;
    model.modules.push({ name: module, ...(typeof d.description === 'string' && { description: d.description }), ...optExt(d, []) });

    list(d.entities, `${at}/entities`).forEach((rawE, i) => {
      const eAt = `${at}/entities/${i}`;
      const e = named(rawE, eAt, 'entity');
      if (!e || !fresh('entity', e.name, `${eAt}/name`)) return;
      warnUnknown(e, ENTITY_KEYS, eAt);
      const fields: FieldMap = {};
      list(e.fields, `${eAt}/fields`).forEach((f, fi) => {
        const read = readField(f, `${eAt}/fields/${fi}`, diagnostics);
        if (!read) return;
        if (fields[read[0]]) diagnostics.push(fmt('warning', `${eAt}/fields/${fi}`, `duplicate field "${read[0]}" left out`));
        else fields[read[0]] = read[1];
      });
      model.entities.push({ name: e.name, ...(typeof e.description === 'string' && { description: e.description }), module, fields, ...optExt(e, []) });
    });

    list(d.events, `${at}/events`).forEach((rawV, i) => {
      const vAt = `${at}/events/${i}`;
      const v = named(rawV, vAt, 'event');
      if (!v || !fresh('event', v.name, `${vAt}/name`)) return;
      warnUnknown(v, EVENT_KEYS, vAt);
      model.events.push({
        name: v.name,
        ...(typeof v.description === 'string' && { description: v.description }),
        module,
        ...(typeof v.entity_type === 'string' && { entity_type: v.entity_type }),
        ...(typeof v.action === 'string' && { action: v.action }),
        ...(typeof v.topic === 'string' && { topic: v.topic }),
        ...optExt(v, []),
      });
    });

    list(d.processes, `${at}/processes`).forEach((rawP, i) => {
      const pAt = `${at}/processes/${i}`;
      const p = named(rawP, pAt, 'process');
      if (!p || !fresh('workflow', p.name, `${pAt}/name`)) return;
      warnUnknown(p, PROCESS_KEYS, pAt);
      const stepNames: string[] = [];
      list(p.steps, `${pAt}/steps`).forEach((s, si) => {
        if (typeof s === 'string' && s !== '') stepNames.push(s);
        else diagnostics.push(fmt('warning', `${pAt}/steps/${si}`, 'a step must be a non-empty name; left out'));
      });
      const used = new Set<string>();
      const ids = stepNames.map((s) => {
        const id = uniqueName(s, used);
        used.add(id);
        return id;
      });
      const wf: ModelWorkflow = { name: p.name, ...(typeof p.description === 'string' && { description: p.description }), module, steps: [] };
      const triggers = stringList(list(p.triggers, `${pAt}/triggers`));
      if (triggers?.length) wf.triggers = triggers;
      wf.steps = stepNames.map((s, si) => ({ id: ids[si], kind: 'action' as const, action: s, ...(si + 1 < ids.length && { next: ids[si + 1] }) }));
      Object.assign(wf, optExt(p, []));
      model.workflows.push(wf);
      for (const s of stepNames) {
        if (!model.actions.some((a) => a.name === s)) model.actions.push({ name: s, module, kind: 'command' });
      }
    });
  });

  if (source.actors !== undefined) {
    if (Array.isArray(source.actors)) model.extensions = { ...model.extensions, 'x-actors': cloneJson(source.actors) };
    else diagnostics.push(fmt('warning', '/actors', 'expected a list; ignored'));
  }
  const ext = extensionsOf(source);
  if (ext) model.extensions = { ...ext, ...model.extensions };
  return { model, diagnostics: withPositions(diagnostics, options.map) };
}

function optExt(item: Record<string, unknown>, exclude: string[]): { extensions?: ReturnType<typeof extensionsOf> } {
  const ext = extensionsOf(item, exclude);
  return ext ? { extensions: ext } : {};
}

function readField(f: unknown, at: string, diagnostics: Diagnostic[]): [string, ModelField] | undefined {
  if (typeof f === 'string' && f !== '') return [f, { type: 'any' }];
  if (isRecord(f)) {
    if (typeof f.name === 'string' && f.name !== '') {
      for (const k of Object.keys(f)) if (!FIELD_KEYS.includes(k)) diagnostics.push(fmt('warning', child(at, k), `unknown key "${k}" ignored`));
      const field: ModelField = { type: asString(f.type) ?? 'any' };
      if (f.required === true) field.required = true;
      if (typeof f.description === 'string') field.description = f.description;
      if (Array.isArray(f.enum)) field.enum = f.enum.filter((v): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v));
      return [f.name, field];
    }
    const entries = Object.entries(f);
    if (entries.length === 1 && typeof entries[0][1] === 'string') return [entries[0][0], { type: entries[0][1] as string }];
  }
  diagnostics.push(fmt('warning', at, 'a field must be a name, {name, type} or {<name>: <type>}; left out'));
  return undefined;
}

export function writeBusinessModel(model: ApiModel, options: BusinessModelWriteOptions = {}): FormatWriteResult<BusinessModelDocument> {
  const diagnostics: Diagnostic[] = [];
  const doc: BusinessModelDocument = { title: model.title ?? 'Untitled', version: model.apiVersion ?? model.version ?? '1.0', domains: [] };
  if (model.description !== undefined) doc.description = model.description;

  const entity = (e: ApiModel['entities'][number]): BizEntity => ({
    name: e.name,
    ...(e.description !== undefined && { description: e.description }),
    fields: Object.entries(e.fields).map(([name, f]) =>
      options.typedFields && f.type !== 'any' ? { name, type: f.type, ...(f.required && { required: true }) } : name,
    ),
  });
  const event = (v: ApiModel['events'][number]): BizEvent => ({
    name: v.name,
    ...(v.description !== undefined && { description: v.description }),
    ...(v.entity_type !== undefined && { entity_type: v.entity_type }),
    ...(v.action !== undefined && { action: v.action }),
    ...(v.topic !== undefined && { topic: v.topic }),
  });
  const process = (w: ModelWorkflow): BizProcess => ({
    name: w.name,
    ...(w.description !== undefined && { description: w.description }),
    triggers: [...(w.triggers ?? [])],
    steps: w.steps.filter((s) => s.kind !== 'end' || s.action !== undefined || s.event !== undefined).map((s) => s.action ?? s.event ?? s.id),
  });

  if (model.modules.length) {
    const known = new Set(model.modules.map((m) => m.name));
    const orphan = (section: string, what: string, items: Array<{ name: string; module?: string }>): void =>
      items.forEach((it, i) => {
        if (it.module === undefined || !known.has(it.module)) {
          diagnostics.push(fmt('warning', pointer(section, i), `${what} "${it.name}" belongs to no module; left out of the business model`));
        }
      });
    orphan('entities', 'entity', model.entities);
    orphan('events', 'event', model.events);
    orphan('workflows', 'workflow', model.workflows);
    doc.domains = model.modules.map((m) => ({
      name: m.name,
      ...(m.description !== undefined && { description: m.description }),
      entities: model.entities.filter((e) => e.module === m.name).map(entity),
      events: model.events.filter((v) => v.module === m.name).map(event),
      processes: model.workflows.filter((w) => w.module === m.name).map(process),
    }));
  } else {
    doc.domains = [
      {
        name: model.title ?? 'default',
        ...(model.description !== undefined && { description: model.description }),
        entities: model.entities.map(entity),
        events: model.events.map(event),
        processes: model.workflows.map(process),
      },
    ];
  }
  const actors = model.extensions?.['x-actors'];
  if (Array.isArray(actors)) doc.actors = cloneJson(actors) as BizActor[];
  return { document: doc, diagnostics };
}
