import { VALIDATION_CODES, type ValidationCode } from './codes';
import { isFieldType } from './field-types';
import { type ApiModel, CHANNEL_PROTOCOLS, type Diagnostic, type FieldMap, type ModelField } from './model';
import { jsonPointer, type SourceMap } from './source';

/**
 * The flow definition validator (issue 5 item 4): the spec's codes FDL001..FDL060, each with the
 * table's severity. Paths are JSON pointers into the model in form A shape (`/workflows/0/steps/1/next`);
 * a missing member is pointed at by the key it should have (`/events/2/entity_type`).
 *
 * Only the table's rules are checked. Notably not checked (no code in the spec): entity field
 * types, `ref` targets, duplicate names, step kinds without their action/event.
 *
 * Order: FDL002, then the sections in form A order (modules, events, actions, workflows, channels,
 * schedules), items in document order.
 */

export interface ValidateOptions {
  /** Source map of the text the model was read from, to fill `position`. */
  map?: SourceMap;
}

const PROTOCOLS = new Set<string>(CHANNEL_PROTOCOLS);

export function validateModel(model: ApiModel | null | undefined, options: ValidateOptions = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  const report = (code: ValidationCode, path: string, message: string) => {
    const d: Diagnostic = { code, severity: VALIDATION_CODES[code].severity, message, path };
    const position = options.map?.position(path);
    if (position) d.position = position;
    out.push(d);
  };

  if (model === null || model === undefined) {
    report('FDL001', '', 'the document is nil');
    return out;
  }

  if (!model.version?.trim()) report('FDL002', '/version', 'version is empty (form A documents use version "1.0")');

  const modules = new Set((model.modules ?? []).map((m) => m.name));
  (model.modules ?? []).forEach((m, i) => {
    (m.depends_on ?? []).forEach((dep, k) => {
      if (!modules.has(dep)) report('FDL030', `/modules/${i}/depends_on/${k}`, `module "${m.name}" depends on unknown module "${dep}"`);
    });
  });

  (model.events ?? []).forEach((e, i) => {
    if (!e.entity_type) report('FDL010', `/events/${i}/entity_type`, `event "${e.name}" has no entity_type`);
    if (!e.action) report('FDL011', `/events/${i}/action`, `event "${e.name}" has no action`);
    if (e.payload) checkFields(e.payload, `/events/${i}/payload`, (path, field, name) => report('FDL012', path, `event "${e.name}": payload field "${name}" has unrecognised type "${field.type}"`));
  });

  const actions = new Set((model.actions ?? []).map((a) => a.name));
  (model.actions ?? []).forEach((a, i) => {
    for (const side of ['input', 'output'] as const) {
      const fields = a[side];
      if (fields) checkFields(fields, `/actions/${i}/${side}`, (path, field, name) => report('FDL060', path, `action "${a.name}": ${side} field "${name}" has unrecognised type "${field.type}"`));
    }
  });

  const events = new Set((model.events ?? []).map((e) => e.name));
  (model.workflows ?? []).forEach((w, i) => {
    const steps = w.steps ?? [];
    const ids = new Set(steps.map((s) => s.id).filter((id) => !!id));
    steps.forEach((s, j) => {
      const p = `/workflows/${i}/steps/${j}`;
      const label = s.id ? `step "${s.id}"` : `step ${j}`;
      if (!s.id) report('FDL020', `${p}/id`, `workflow "${w.name}": step ${j} has no id`);
      if (s.next && !ids.has(s.next)) report('FDL021', `${p}/next`, `workflow "${w.name}": ${label} has next "${s.next}", which is not a step of this workflow`);
      if (s.on_error && !ids.has(s.on_error)) report('FDL022', `${p}/on_error`, `workflow "${w.name}": ${label} has on_error "${s.on_error}", which is not a step of this workflow`);
      if (s.action && !actions.has(s.action)) report('FDL023', `${p}/action`, `workflow "${w.name}": ${label} runs unknown action "${s.action}"`);
      if (s.event && !events.has(s.event)) report('FDL024', `${p}/event`, `workflow "${w.name}": ${label} emits unknown event "${s.event}"`);
    });
  });

  (model.channels ?? []).forEach((c, i) => {
    if (c.protocol !== undefined && !PROTOCOLS.has(c.protocol)) {
      report('FDL050', `/channels/${i}/protocol`, `channel "${c.name}": protocol "${c.protocol}" is not one of ${CHANNEL_PROTOCOLS.join(', ')}`);
    }
  });

  (model.schedules ?? []).forEach((s, i) => {
    if (s.action && !actions.has(s.action)) report('FDL040', `/schedules/${i}/action`, `schedule "${s.name}" fires unknown action "${s.action}"`);
  });

  return out;
}

/** Calls `bad` for every field (nested `fields` and `items` included) whose type is not in the table. */
function checkFields(fields: FieldMap, path: string, bad: (path: string, field: ModelField, name: string) => void): void {
  for (const [name, f] of Object.entries(fields)) checkField(f, `${path}${jsonPointer(name)}`, name, bad);
}

function checkField(f: ModelField, path: string, name: string, bad: (path: string, field: ModelField, name: string) => void): void {
  if (!isFieldType(f.type)) bad(`${path}/type`, f, name);
  if (f.items) checkField(f.items, `${path}/items`, `${name}[]`, bad);
  if (f.fields) for (const [n, sub] of Object.entries(f.fields)) checkField(sub, `${path}/fields${jsonPointer(n)}`, `${name}.${n}`, bad);
}
