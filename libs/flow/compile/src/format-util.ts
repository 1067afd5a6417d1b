/**
 * Small helpers shared by the format readers and writers (openapi, asyncapi, business-model,
 * form-b). Internal to the library.
 */
import { fieldsToSchema, fieldToSchema, type JsonSchema } from './field-types';
import type { Diagnostic, DiagnosticSeverity, Extensions, FieldMap, ModelField } from './model';
import type { SourceMap } from './source';

/** What a reader returns: the model and the problems met (paths point into the source document). */
export interface FormatReadResult {
  model: import('./model').ApiModel;
  diagnostics: Diagnostic[];
}

/** Options of every format reader. */
export interface FormatReadOptions {
  /** Source map of the text the value came from (`parseSource`), to fill diagnostics' `position`. */
  map?: SourceMap;
}

/** Fills `position` of the diagnostics from a source map (in place; returns them). */
export function withPositions(diagnostics: Diagnostic[], map: SourceMap | undefined): Diagnostic[] {
  if (!map) return diagnostics;
  for (const d of diagnostics) {
    if (d.position) continue;
    const position = map.position(d.path);
    if (position) d.position = position;
  }
  return diagnostics;
}

/** What a writer returns: the document and the problems met (paths point into the IR, form A shape). */
export interface FormatWriteResult<T> {
  document: T;
  diagnostics: Diagnostic[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Deep equality of JSON values, ignoring key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k], b[k]));
  }
  return a === b;
}

/** JSON pointer of tokens (RFC 6901 escaping). */
export function pointer(...tokens: Array<string | number>): string {
  return tokens.map((t) => `/${String(t).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** Appends tokens to a pointer. */
export function child(base: string, ...tokens: Array<string | number>): string {
  return base + pointer(...tokens);
}

/** Value at a local JSON pointer (`#/a/b` or `/a/b`), or undefined. */
export function resolvePointer(root: unknown, ref: string): unknown {
  const p = ref.startsWith('#') ? ref.slice(1) : ref;
  if (p === '') return root;
  if (!p.startsWith('/')) return undefined;
  let cur: unknown = root;
  for (const raw of p.slice(1).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(token)];
    else if (isRecord(cur) && Object.prototype.hasOwnProperty.call(cur, token)) cur = cur[token];
    else return undefined;
  }
  return cur;
}

export function fmt(severity: DiagnosticSeverity, path: string, message: string): Diagnostic {
  return { code: 'FMT', severity, message, path };
}

/** The `x-` keys of an object, or undefined when there are none (minus `exclude`). */
export function extensionsOf(value: Record<string, unknown>, exclude: readonly string[] = []): Extensions | undefined {
  const out: Extensions = {};
  let any = false;
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('x-') && !exclude.includes(k) && v !== undefined) {
      out[k as `x-${string}`] = cloneJson(v);
      any = true;
    }
  }
  return any ? out : undefined;
}

/** `base`, or `base_2`, `base_3`... the first not in `used`. */
export function uniqueName(base: string, used: Set<string>): string {
  if (!used.has(base)) return base;
  let n = 2;
  while (used.has(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}

export function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : undefined;
}

/**
 * A copy of `field` whose `ref`s to names not in `known` become `any` (a dangling `$ref` would
 * make the written document invalid); each replacement is reported at `path`.
 */
export function withKnownRefs(field: ModelField, known: Set<string>, path: string, diagnostics: Diagnostic[]): ModelField {
  if (field.type === 'ref') {
    if (field.ref !== undefined && known.has(field.ref)) return field;
    diagnostics.push(fmt('warning', path, `ref to unknown entity "${field.ref ?? ''}" written as an empty schema`));
    const { ref: _ref, ...rest } = field;
    return { ...rest, type: 'any' };
  }
  let out = field;
  if (field.items) out = { ...out, items: withKnownRefs(field.items, known, `${path}/items`, diagnostics) };
  if (field.fields) out = { ...out, fields: fieldsWithKnownRefs(field.fields, known, `${path}/fields`, diagnostics) };
  return out;
}

export function fieldsWithKnownRefs(fields: FieldMap, known: Set<string>, path: string, diagnostics: Diagnostic[]): FieldMap {
  const out: FieldMap = {};
  for (const [name, f] of Object.entries(fields)) out[name] = withKnownRefs(f, known, child(path, name), diagnostics);
  return out;
}

/** JSON Schema of a field map, with dangling refs degraded (see withKnownRefs) and field extensions written. */
export function safeFieldsToSchema(fields: FieldMap, known: Set<string>, path: string, diagnostics: Diagnostic[]): JsonSchema {
  return withFieldExtensions(fieldsToSchema(fieldsWithKnownRefs(fields, known, path, diagnostics)), fields);
}

export function safeFieldToSchema(field: ModelField, known: Set<string>, path: string, diagnostics: Diagnostic[]): JsonSchema {
  return withFieldExtension(fieldToSchema(withKnownRefs(field, known, path, diagnostics)), field);
}

/** fieldToSchema leaves field `extensions` out; formats with extensions carry them as schema `x-` keys. */
function withFieldExtension(schema: JsonSchema, field: ModelField): JsonSchema {
  let out = schema;
  if (field.extensions && !('$ref' in schema)) out = { ...out, ...cloneJson(field.extensions) };
  if (field.items && isRecord(out.items)) out = { ...out, items: withFieldExtension(out.items, field.items) };
  if (field.fields && isRecord(out.properties)) out = withFieldExtensions(out, field.fields);
  return out;
}

function withFieldExtensions(schema: JsonSchema, fields: FieldMap): JsonSchema {
  const props = schema.properties as Record<string, JsonSchema>;
  const next: Record<string, JsonSchema> = {};
  for (const [name, s] of Object.entries(props)) next[name] = fields[name] ? withFieldExtension(s, fields[name]) : s;
  return { ...schema, properties: next };
}

/** First line of a text (OpenAPI summaries). */
export function firstLine(text: string): string {
  const line = text.split('\n', 1)[0].trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

/** Puts the `x-` keys of a schema (and of its items and properties) on the field read from it. */
export function attachSchemaExtensions(field: ModelField, schema: unknown): ModelField {
  if (!isRecord(schema) || '$ref' in schema) return field;
  const ext = extensionsOf(schema);
  if (ext) field.extensions = ext;
  if (field.items && schema.items !== undefined) attachSchemaExtensions(field.items, schema.items);
  if (field.fields && isRecord(schema.properties)) attachFieldsExtensions(field.fields, schema.properties);
  return field;
}

export function attachFieldsExtensions(fields: FieldMap, properties: Record<string, unknown>): FieldMap {
  for (const [name, f] of Object.entries(fields)) attachSchemaExtensions(f, properties[name]);
  return fields;
}
