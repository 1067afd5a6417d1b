import { CronExpressionParser } from 'cron-parser';
import { FORM_A_VERSIONS, MODEL_CODES, type ModelCode, VALIDATION_CODES, type ValidationCode } from './codes';
import { isFieldType } from './field-types';
import { type ApiModel, CHANNEL_PROTOCOLS, type Diagnostic, type FieldMap, type ModelField } from './model';
import { jsonPointer, type SourceMap } from './source';

/**
 * The flow definition validator (issue 5 item 4): the spec's codes FDL001..FDL060, each with the
 * table's severity. Paths are JSON pointers into the model in form A shape (`/workflows/0/steps/1/next`);
 * a missing member is pointed at by the key it should have (`/events/2/entity_type`).
 *
 * Beyond the table, the MODEL_CODES errors (documents that would compile to broken output):
 * duplicate names within a section (DUPLICATE_NAME), entity field types (FIELD_TYPE; event payload
 * and action fields keep the table's FDL012/FDL060 warnings), enums without values (EMPTY_ENUM),
 * `emits` and `triggers` naming no event (UNKNOWN_EVENT), action paths without a leading slash
 * (HTTP_PATH) and invalid cron expressions (CRON). Not checked: `ref` targets, step kinds without
 * their action/event.
 *
 * Order: FDL002, then the sections in form A order (modules, entities, events, actions, workflows,
 * channels, schedules), items in document order.
 */

export interface ValidateOptions {
  /** Source map of the text the model was read from, to fill `position`. */
  map?: SourceMap;
  /**
   * False when the source format has no place for events (OpenAPI: `x-emits` names events another
   * document declares), so `emits` and `triggers` are not checked against them. Default true.
   */
  declaresEvents?: boolean;
}

const PROTOCOLS = new Set<string>(CHANNEL_PROTOCOLS);

export function validateModel(model: ApiModel | null | undefined, options: ValidateOptions = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  const report = (code: ValidationCode | ModelCode, path: string, message: string) => {
    const d: Diagnostic = { code, severity: (code in VALIDATION_CODES ? VALIDATION_CODES[code as ValidationCode] : MODEL_CODES[code as ModelCode]).severity, message, path };
    const position = options.map?.position(path);
    if (position) d.position = position;
    out.push(d);
  };

  if (model === null || model === undefined) {
    report('FDL001', '', 'the document is nil');
    return out;
  }

  if (!model.version?.trim()) report('FDL002', '/version', 'version is empty (form A documents use version "1.0")');
  else if (!FORM_A_VERSIONS.includes(model.version.trim())) {
    report('UNSUPPORTED_VERSION', '/version', `version "${model.version}" is not one this converter reads (it reads ${FORM_A_VERSIONS.map((v) => `"${v}"`).join(', ')}); the document is read as ${FORM_A_VERSIONS[0]}`);
  }

  const duplicates = (section: string, what: string, items: ReadonlyArray<{ name: string }> | undefined) => {
    const first = new Map<string, number>();
    (items ?? []).forEach((item, i) => {
      const at = first.get(item.name);
      if (at === undefined) first.set(item.name, i);
      else report('DUPLICATE_NAME', `/${section}/${i}/name`, `${what} name "${item.name}" is already used by /${section}/${at}`);
    });
  };
  const enums = (fields: FieldMap, path: string, owner: string) =>
    walkFields(fields, path, (f, p, name) => {
      // `type: enum` alone is a plain string; an enum list that is there must allow something.
      if (f.enum !== undefined && f.enum.length === 0) report('EMPTY_ENUM', `${p}/enum`, `${owner}: field "${name}" has an empty enum, so no value is valid`);
    });

  duplicates('modules', 'module', model.modules);
  const modules = new Set((model.modules ?? []).map((m) => m.name));
  (model.modules ?? []).forEach((m, i) => {
    (m.depends_on ?? []).forEach((dep, k) => {
      if (!modules.has(dep)) report('FDL030', `/modules/${i}/depends_on/${k}`, `module "${m.name}" depends on unknown module "${dep}"`);
    });
  });

  duplicates('entities', 'entity', model.entities);
  (model.entities ?? []).forEach((e, i) => {
    const owner = `entity "${e.name}"`;
    checkFields(e.fields ?? {}, `/entities/${i}/fields`, (path, field, name) => report('FIELD_TYPE', path, `${owner}: field "${name}" has unrecognised type "${field.type}"`));
    enums(e.fields ?? {}, `/entities/${i}/fields`, owner);
  });

  duplicates('events', 'event', model.events);
  (model.events ?? []).forEach((e, i) => {
    if (!e.entity_type) report('FDL010', `/events/${i}/entity_type`, `event "${e.name}" has no entity_type`);
    if (!e.action) report('FDL011', `/events/${i}/action`, `event "${e.name}" has no action`);
    if (e.payload) checkFields(e.payload, `/events/${i}/payload`, (path, field, name) => report('FDL012', path, `event "${e.name}": payload field "${name}" has unrecognised type "${field.type}"`));
    if (e.payload) enums(e.payload, `/events/${i}/payload`, `event "${e.name}"`);
  });

  const events = new Set((model.events ?? []).map((e) => e.name));
  duplicates('actions', 'action', model.actions);
  const actions = new Set((model.actions ?? []).map((a) => a.name));
  (model.actions ?? []).forEach((a, i) => {
    for (const side of ['input', 'output'] as const) {
      const fields = a[side];
      if (fields) checkFields(fields, `/actions/${i}/${side}`, (path, field, name) => report('FDL060', path, `action "${a.name}": ${side} field "${name}" has unrecognised type "${field.type}"`));
      if (fields) enums(fields, `/actions/${i}/${side}`, `action "${a.name}" ${side}`);
    }
    if (a.path !== undefined && !a.path.startsWith('/')) report('HTTP_PATH', `/actions/${i}/path`, `action "${a.name}": path "${a.path}" must start with "/"`);
    (a.emits ?? []).forEach((ev, k) => {
      if (options.declaresEvents !== false && !events.has(ev)) report('UNKNOWN_EVENT', `/actions/${i}/emits/${k}`, `action "${a.name}" emits unknown event "${ev}"`);
    });
  });

  duplicates('workflows', 'workflow', model.workflows);
  (model.workflows ?? []).forEach((w, i) => {
    (w.triggers ?? []).forEach((ev, k) => {
      if (options.declaresEvents !== false && !events.has(ev)) report('UNKNOWN_EVENT', `/workflows/${i}/triggers/${k}`, `workflow "${w.name}" is triggered by unknown event "${ev}"`);
    });
    const steps = w.steps ?? [];
    const ids = new Set(steps.map((s) => s.id).filter((id) => !!id));
    const firstStep = new Map<string, number>();
    steps.forEach((s, j) => {
      const p = `/workflows/${i}/steps/${j}`;
      const label = s.id ? `step "${s.id}"` : `step ${j}`;
      if (!s.id) report('FDL020', `${p}/id`, `workflow "${w.name}": step ${j} has no id`);
      else if (firstStep.has(s.id)) report('DUPLICATE_STEP', `${p}/id`, `workflow "${w.name}": step id "${s.id}" is already used by /workflows/${i}/steps/${firstStep.get(s.id)}`);
      else firstStep.set(s.id, j);
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
    for (const op of ['publish', 'subscribe'] as const) {
      const ev = c[op]?.event;
      if (ev !== undefined && options.declaresEvents !== false && !events.has(ev)) report('UNKNOWN_EVENT', `/channels/${i}/${op}/event`, `channel "${c.name}": ${op} carries unknown event "${ev}"`);
    }
  });

  duplicates('schedules', 'schedule', model.schedules);
  (model.schedules ?? []).forEach((s, i) => {
    const cron = cronProblem(s.cron);
    if (cron) report('CRON', `/schedules/${i}/cron`, `schedule "${s.name}": ${cron}`);
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

/** Calls `visit` for every field, nested `items` and `fields` included. */
function walkFields(fields: FieldMap, path: string, visit: (field: ModelField, path: string, name: string) => void): void {
  const walk = (f: ModelField, p: string, name: string) => {
    visit(f, p, name);
    if (f.items) walk(f.items, `${p}/items`, `${name}[]`);
    if (f.fields) for (const [n, sub] of Object.entries(f.fields)) walk(sub, `${p}/fields${jsonPointer(n)}`, `${name}.${n}`);
  };
  for (const [name, f] of Object.entries(fields)) walk(f, `${path}${jsonPointer(name)}`, name);
}

const FIVE_FIELDS = /^\s*\S+(\s+\S+){4}\s*$/;

/** Why a schedule's cron is not a five-field expression (minute hour day-of-month month day-of-week, UTC), or undefined. */
export function cronProblem(cron: string | undefined): string | undefined {
  if (cron === undefined || cron.trim() === '') return 'cron is empty';
  if (!FIVE_FIELDS.test(cron)) return `cron "${cron}" must have exactly five fields (minute hour day-of-month month day-of-week), evaluated in UTC`;
  try {
    CronExpressionParser.parse(cron, { tz: 'UTC' });
    return undefined;
  } catch (e) {
    return `cron "${cron}" is invalid: ${(e as Error).message}`;
  }
}
