import { PIPELINE_CODES, VALIDATION_CODES } from './codes';
import { canonicalFieldType, toolTypeOf } from './field-types';
import type { ApiModel, Diagnostic, FieldMap, ModelEntity, ModelField } from './model';

/**
 * Function-calling tool export (issue 5 item 6).
 *
 * Sources:
 * - `actions`: one tool per action, named after it, parameters from its `input`;
 * - `commands`: the same for actions of kind `command` only;
 * - `entities`: one lookup tool `get_<entity>` per entity. Its parameters are the entity's
 *   identifying fields: the `id` field when the entity has one (always required), otherwise its
 *   required fields; an entity with neither gets a tool without parameters;
 * - `all`: actions (which include the commands, so they are not listed twice), then entity lookups.
 *
 * Parameter schemas: the field's tool type (`toolTypeOf`: string, date, datetime, uuid, binary and
 * enum are strings, the others as named); `format` (explicit, or date / date-time / uuid / binary
 * implied by the type); `enum`; `description`; arrays have `items`; objects have nested
 * `properties` and `required`. A `ref` to an entity is inlined as that entity's object schema (a
 * ref met again inside itself becomes a plain object); `any`, unknown types and unresolved refs get
 * the empty schema (anything).
 *
 * Names: characters outside [a-zA-Z0-9_-] become `_`, at most 64 characters (`tool` for an empty
 * name). A name already taken gets `_2`, `_3`, ... in document order. Every renamed tool (either
 * way) gets a TOOL_NAME warning, so a caller knows which name the model will call it by.
 */

export type ToolSource = 'actions' | 'entities' | 'commands' | 'all';

export interface ToolParameterSchema {
  type?: string;
  description?: string;
  format?: string;
  enum?: Array<string | number | boolean>;
  items?: ToolParameterSchema;
  properties?: Record<string, ToolParameterSchema>;
  required?: string[];
}

export interface ToolDefinition {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: { type: 'object'; properties: Record<string, ToolParameterSchema>; required: string[] };
  };
}

export interface ToolExport {
  tools: ToolDefinition[];
  diagnostics: Diagnostic[];
}

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** A name matching TOOL_NAME_PATTERN. */
export function sanitizeToolName(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return s || 'tool';
}

const IMPLIED_FORMAT: Record<string, string> = { date: 'date', datetime: 'date-time', uuid: 'uuid', binary: 'binary' };

export function exportTools(model: ApiModel | null | undefined, source: ToolSource = 'all'): ToolExport {
  if (!model) return { tools: [], diagnostics: [{ code: 'FDL001', severity: VALIDATION_CODES.FDL001.severity, message: 'the document is nil', path: '' }] };
  const entities = new Map<string, ModelEntity>();
  for (const e of model.entities ?? []) if (!entities.has(e.name)) entities.set(e.name, e);

  const candidates: Array<{ name: string; path: string; tool: ToolDefinition['function'] }> = [];
  if (source !== 'entities') {
    (model.actions ?? []).forEach((a, i) => {
      if (source === 'commands' && a.kind !== 'command') return;
      const http = a.method && a.path ? ` (${a.method} ${a.path})` : '';
      const description = (a.description ?? `${capitalize(a.kind ?? 'action')} ${a.name}`) + http;
      candidates.push({ name: a.name, path: `/actions/${i}/name`, tool: { name: '', description, parameters: objectParameters(a.input ?? {}, entities) } });
    });
  }
  if (source === 'entities' || source === 'all') {
    (model.entities ?? []).forEach((e, i) => {
      const id = e.fields.id;
      const keys: FieldMap = id ? { id: { ...id, required: true } } : Object.fromEntries(Object.entries(e.fields).filter(([, f]) => f.required));
      const by = Object.keys(keys);
      const description = e.description ? `Look up a ${e.name}: ${e.description}` : `Look up a ${e.name}${by.length ? ` by ${by.join(', ')}` : ''}`;
      candidates.push({ name: `get_${e.name}`, path: `/entities/${i}/name`, tool: { name: '', description, parameters: objectParameters(keys, entities) } });
    });
  }

  const taken = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  const tools = candidates.map((c) => {
    const base = sanitizeToolName(c.name);
    let name = base;
    for (let k = 2; taken.has(name); k++) {
      const suffix = `_${k}`;
      name = base.slice(0, 64 - suffix.length) + suffix;
    }
    if (name !== base) {
      diagnostics.push({ code: 'TOOL_NAME', severity: PIPELINE_CODES.TOOL_NAME.severity, message: `tool name "${base}" (from "${c.name}") is already used; renamed to "${name}"`, path: c.path });
    } else if (name !== c.name) {
      diagnostics.push({
        code: 'TOOL_NAME',
        severity: PIPELINE_CODES.TOOL_NAME.severity,
        message: `tool name "${c.name}" is not 1 to 64 letters, digits, "_" or "-"; renamed to "${name}"`,
        path: c.path,
      });
    }
    taken.add(name);
    return { type: 'function' as const, function: { ...c.tool, name } };
  });
  return { tools, diagnostics };
}

/** The exported list as JSON text. */
export function toolsToJson(tools: readonly ToolDefinition[]): string {
  return JSON.stringify(tools, null, 2) + '\n';
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function objectParameters(fields: FieldMap, entities: Map<string, ModelEntity>): ToolDefinition['function']['parameters'] {
  const properties: Record<string, ToolParameterSchema> = {};
  const required: string[] = [];
  for (const [name, f] of Object.entries(fields)) {
    properties[name] = fieldSchema(f, entities, new Set());
    if (f.required) required.push(name);
  }
  return { type: 'object', properties, required };
}

/** Tool-schema of one field. `seen`: entity names being inlined (ref cycles). */
export function fieldSchema(f: ModelField, entities: Map<string, ModelEntity>, seen: Set<string> = new Set()): ToolParameterSchema {
  const t = canonicalFieldType(f.type);
  let schema: ToolParameterSchema;
  if (t === 'ref') {
    const target = f.ref !== undefined ? entities.get(f.ref) : undefined;
    if (target && !seen.has(target.name)) {
      schema = nested(target.fields, entities, new Set([...seen, target.name]));
      if (!f.description && target.description) schema.description = target.description;
    } else schema = target ? { type: 'object' } : {};
  } else {
    const type = toolTypeOf(t);
    schema = type ? { type } : {};
    if (t === 'array') schema.items = f.items ? fieldSchema(f.items, entities, seen) : {};
    if (t === 'object' && f.fields) schema = nested(f.fields, entities, seen);
    const format = f.format ?? IMPLIED_FORMAT[t];
    if (format) schema.format = format;
    if (f.enum?.length) schema.enum = [...f.enum];
  }
  if (f.description) schema.description = f.description;
  return schema;
}

function nested(fields: FieldMap, entities: Map<string, ModelEntity>, seen: Set<string>): ToolParameterSchema {
  const properties: Record<string, ToolParameterSchema> = {};
  const required: string[] = [];
  for (const [name, sub] of Object.entries(fields)) {
    properties[name] = fieldSchema(sub, entities, seen);
    if (sub.required) required.push(name);
  }
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
}
