/**
 * JSON Schema as met in OpenAPI and AsyncAPI documents, brought to the subset `fieldFromSchema`
 * reads: local `$ref`s resolved (those naming a component schema that is an entity stay `$ref`s
 * and become `ref` fields), `allOf` merged, `oneOf`/`anyOf` approximated, each approximation
 * reported as a warning with the JSON pointer of the source item. Internal to the library.
 */
import { fieldFromSchema, fieldsFromSchema, type JsonSchema } from './field-types';
import { attachFieldsExtensions, attachSchemaExtensions, child, fmt, isRecord, resolvePointer } from './format-util';
import type { Diagnostic, FieldMap, ModelField } from './model';

export interface SchemaReadContext {
  /** The whole source document (local `$ref` targets). */
  root: unknown;
  /** `#/components/schemas/<name>` of every component schema read as an entity, to its name. */
  entityRefs: Map<string, string>;
  diagnostics: Diagnostic[];
}

const KEPT = ['type', 'format', 'enum', 'description', 'nullable', 'required'];

/** Whether a component schema describes an object (and so becomes an entity). */
export function isObjectSchema(schema: unknown): boolean {
  if (!isRecord(schema) || typeof schema.$ref === 'string') return false;
  const type = schema.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || isRecord(schema.properties) || Array.isArray(schema.allOf) || Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf);
}

/** Escaped pointer token of a component name inside `#/components/schemas/`. */
export function componentRef(section: string, name: string): string {
  return `#/components/${section}${child('', name)}`;
}

/** The schema in the fieldFromSchema subset. `path` is the JSON pointer of `schema` in the source. */
export function normalizeSchema(schema: unknown, path: string, ctx: SchemaReadContext, seen: ReadonlySet<string> = new Set()): JsonSchema {
  if (!isRecord(schema)) return {};
  if (typeof schema.$ref === 'string') return normalizeRef(schema.$ref, path, ctx, seen, schema);

  let base: JsonSchema = {};
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((p, i) => expandEntity(normalizeSchema(p, `${path}/allOf/${i}`, ctx, seen), ctx, seen));
    ctx.diagnostics.push(fmt('warning', `${path}/allOf`, `allOf approximated by merging its ${parts.length} schemas`));
    base = mergeAll(parts, true);
  } else {
    const key = Array.isArray(schema.oneOf) ? 'oneOf' : Array.isArray(schema.anyOf) ? 'anyOf' : undefined;
    if (key) {
      const alts = (schema[key] as unknown[]).map((p, i) => normalizeSchema(p, `${path}/${key}/${i}`, ctx, seen));
      const nonNull = alts.filter((a) => a.type !== 'null');
      if (nonNull.length === 1 && alts.length === 2) {
        // `anyOf: [X, {type: null}]`, the 3.1 spelling of a nullable X.
        base = { ...nonNull[0], nullable: true };
      } else {
        const expanded = nonNull.map((a) => expandEntity(a, ctx, seen));
        if (expanded.length > 0 && expanded.every((a) => isRecord(a.properties))) {
          base = mergeAll(expanded, false);
          ctx.diagnostics.push(fmt('warning', `${path}/${key}`, `${key} approximated by an object with the properties of its ${expanded.length} alternatives, none required`));
        } else {
          ctx.diagnostics.push(fmt('warning', `${path}/${key}`, `${key} of non-object alternatives approximated by an untyped field`));
        }
        if (alts.length !== nonNull.length) base = { ...base, nullable: true };
      }
    }
  }

  const out: JsonSchema = { ...base };
  for (const k of KEPT) if (schema[k] !== undefined) out[k] = schema[k];
  if (schema.const !== undefined && out.enum === undefined) out.enum = [schema.const];
  for (const [k, v] of Object.entries(schema)) if (k.startsWith('x-')) out[k] = v;
  if (isRecord(schema.properties)) {
    const props: Record<string, JsonSchema> = { ...(isRecord(base.properties) ? (base.properties as Record<string, JsonSchema>) : {}) };
    for (const [name, p] of Object.entries(schema.properties)) props[name] = normalizeSchema(p, child(`${path}/properties`, name), ctx, seen);
    out.properties = props;
    if (out.type === undefined) out.type = 'object';
  }
  if (Array.isArray(base.required) && Array.isArray(schema.required)) out.required = [...new Set([...(base.required as string[]), ...(schema.required as string[])])];
  if (schema.items !== undefined) {
    const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
    if (Array.isArray(schema.items)) ctx.diagnostics.push(fmt('warning', `${path}/items`, 'tuple items approximated by the first item schema'));
    out.items = normalizeSchema(items, Array.isArray(schema.items) ? `${path}/items/0` : `${path}/items`, ctx, seen);
  }
  return out;
}

function normalizeRef(ref: string, path: string, ctx: SchemaReadContext, seen: ReadonlySet<string>, schema: Record<string, unknown>): JsonSchema {
  const entity = ctx.entityRefs.get(ref);
  if (entity !== undefined) return { $ref: componentRef('schemas', entity) };
  if (!ref.startsWith('#')) {
    ctx.diagnostics.push(fmt('warning', `${path}/$ref`, `external $ref "${ref}" is not resolved; read as an untyped field`));
    return {};
  }
  if (seen.has(ref)) {
    ctx.diagnostics.push(fmt('warning', `${path}/$ref`, `recursive $ref "${ref}" to a schema that is no entity; read as an untyped field`));
    return {};
  }
  const target = resolvePointer(ctx.root, ref);
  if (target === undefined) {
    ctx.diagnostics.push(fmt('warning', `${path}/$ref`, `$ref "${ref}" does not resolve; read as an untyped field`));
    return {};
  }
  const resolved = normalizeSchema(target, ref.slice(1), ctx, new Set([...seen, ref]));
  // OpenAPI 3.1 and AsyncAPI allow a description beside $ref.
  if (typeof schema.description === 'string') resolved.description = schema.description;
  return resolved;
}

/** An entity `$ref` replaced by the entity's own (normalized) schema, for merging. */
function expandEntity(schema: JsonSchema, ctx: SchemaReadContext, seen: ReadonlySet<string>): JsonSchema {
  if (typeof schema.$ref !== 'string') return schema;
  const ref = schema.$ref;
  if (seen.has(ref)) return {};
  const target = resolvePointer(ctx.root, ref);
  // The entity's own problems are reported where the entity is read.
  const quiet: SchemaReadContext = { ...ctx, diagnostics: [] };
  return normalizeSchema(target, ref.slice(1), quiet, new Set([...seen, ref]));
}

function mergeAll(parts: JsonSchema[], keepRequired: boolean): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  let out: JsonSchema = {};
  for (const p of parts) {
    if (isRecord(p.properties)) Object.assign(properties, p.properties);
    if (keepRequired && Array.isArray(p.required)) for (const r of p.required) if (typeof r === 'string' && !required.includes(r)) required.push(r);
    const { properties: _p, required: _r, ...rest } = p;
    out = { ...out, ...rest };
  }
  if (Object.keys(properties).length > 0 || out.type === 'object') {
    out.type = 'object';
    out.properties = properties;
    if (required.length) out.required = required;
  }
  return out;
}

/** Field map of an object schema, or undefined when the schema is no object. */
export function fieldsOfObject(normalized: JsonSchema): FieldMap | undefined {
  if (normalized.type !== 'object' && !isRecord(normalized.properties)) return undefined;
  return attachFieldsExtensions(fieldsFromSchema(normalized), isRecord(normalized.properties) ? normalized.properties : {});
}

/** IR field of a normalized schema. */
export function fieldOf(normalized: JsonSchema, required = false): ModelField {
  return attachSchemaExtensions(fieldFromSchema(normalized, required), normalized);
}

/**
 * Field map of a body or payload schema: an object's properties (a `$ref` to an entity is
 * inlined), otherwise one field named `wrapName` holding the whole value (with a warning).
 */
export function bodyFields(schema: unknown, path: string, ctx: SchemaReadContext, wrapName: string): FieldMap {
  let normalized = normalizeSchema(schema, path, ctx);
  if (typeof normalized.$ref === 'string') normalized = expandEntity(normalized, ctx, new Set());
  const fields = fieldsOfObject(normalized);
  if (fields) return fields;
  ctx.diagnostics.push(fmt('warning', path, `schema is no object; read as the single field "${wrapName}"`));
  return { [wrapName]: fieldOf(normalizeSchema(schema, path, { ...ctx, diagnostics: [] })) };
}
