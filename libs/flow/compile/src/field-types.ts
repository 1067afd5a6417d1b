import { FIELD_TYPES, type FieldType, type ModelField } from './model';

/**
 * The spec's "Field types" table: IR field type to JSON Schema (also AsyncAPI and OpenAPI 3.0,
 * which agree for every row). Readers use `fieldFromSchema` for the way back.
 */

const KNOWN = new Set<string>(FIELD_TYPES);

/** Whether `type` is a field type of the table (aliases included). */
export function isFieldType(type: unknown): type is FieldType {
  return typeof type === 'string' && KNOWN.has(type);
}

/** The canonical spelling of an alias (`int` to `integer`, `float` to `number`, `bool` to `boolean`). */
export function canonicalFieldType(type: string): string {
  switch (type) {
    case 'int':
      return 'integer';
    case 'float':
      return 'number';
    case 'bool':
      return 'boolean';
    default:
      return type;
  }
}

const FORMAT_OF: Partial<Record<string, string>> = { date: 'date', datetime: 'date-time', uuid: 'uuid', binary: 'binary' };
const TYPE_OF_FORMAT: Record<string, string> = { date: 'date', 'date-time': 'datetime', uuid: 'uuid', binary: 'binary' };

/** A JSON Schema object (the subset the pipeline writes). */
export type JsonSchema = Record<string, unknown>;

export interface SchemaOptions {
  /** How a `ref` becomes a reference (default `#/components/schemas/<name>`). */
  refPrefix?: string;
}

/** JSON Schema of one IR field (without `required`, which belongs to the parent object). */
export function fieldToSchema(field: ModelField, options: SchemaOptions = {}): JsonSchema {
  const t = canonicalFieldType(field.type);
  let schema: JsonSchema;
  switch (t) {
    case 'any':
      schema = {};
      break;
    case 'ref':
      return { $ref: `${options.refPrefix ?? '#/components/schemas/'}${field.ref ?? ''}` };
    case 'enum':
      schema = { type: 'string' };
      break;
    case 'date':
    case 'datetime':
    case 'uuid':
    case 'binary':
      schema = { type: 'string', format: FORMAT_OF[t] };
      break;
    case 'array':
      schema = { type: 'array', items: field.items ? fieldToSchema(field.items, options) : {} };
      break;
    case 'object':
      schema = field.fields ? fieldsToSchema(field.fields, options) : { type: 'object' };
      break;
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      schema = { type: t };
      break;
    default:
      // Unrecognised types (FDL012/FDL060) degrade to the empty schema.
      schema = {};
  }
  if (field.format) schema.format = field.format;
  if (field.enum?.length) schema.enum = [...field.enum];
  if (field.description) schema.description = field.description;
  if (field.nullable) schema.nullable = true;
  return schema;
}

/** `{type: object, properties, required}` of a field map (`required` omitted when empty). */
export function fieldsToSchema(fields: Record<string, ModelField>, options: SchemaOptions = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, f] of Object.entries(fields)) {
    properties[name] = fieldToSchema(f, options);
    if (f.required) required.push(name);
  }
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
}

/**
 * IR field from a JSON Schema. `$ref`s to `#/components/schemas/X` (or any pointer ending in a
 * name) become `ref` fields naming X; string formats map back to date, datetime, uuid, binary;
 * a string with an enum becomes `enum`.
 */
export function fieldFromSchema(schema: unknown, required = false): ModelField {
  const s = (typeof schema === 'object' && schema !== null ? schema : {}) as JsonSchema;
  const field: ModelField = { type: 'any' };
  if (typeof s.$ref === 'string') {
    field.type = 'ref';
    field.ref = s.$ref.slice(s.$ref.lastIndexOf('/') + 1);
  } else {
    const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
    const format = typeof s.format === 'string' ? s.format : undefined;
    if (type === 'string' && format && TYPE_OF_FORMAT[format]) field.type = TYPE_OF_FORMAT[format];
    else if (type === 'string' && Array.isArray(s.enum)) field.type = 'enum';
    else if (type === 'array') {
      field.type = 'array';
      if (s.items !== undefined) field.items = fieldFromSchema(s.items);
    } else if (type === 'object' || (type === undefined && typeof s.properties === 'object')) {
      field.type = 'object';
      if (s.properties && typeof s.properties === 'object') field.fields = fieldsFromSchema(s);
    } else if (typeof type === 'string') field.type = type;
    if (format && !(type === 'string' && TYPE_OF_FORMAT[format])) field.format = format;
    if (Array.isArray(s.enum)) field.enum = s.enum.filter((v): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v));
    if (typeof s.description === 'string' && s.description) field.description = s.description;
    if (s.nullable === true || (Array.isArray(s.type) && s.type.includes('null'))) field.nullable = true;
  }
  if (required) field.required = true;
  return field;
}

/** IR field map from an object schema's `properties` and `required`. */
export function fieldsFromSchema(schema: unknown): Record<string, ModelField> {
  const s = (typeof schema === 'object' && schema !== null ? schema : {}) as JsonSchema;
  const props = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Record<string, unknown>;
  const req = new Set(Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === 'string') : []);
  const out: Record<string, ModelField> = {};
  for (const [name, p] of Object.entries(props)) out[name] = fieldFromSchema(p, req.has(name));
  return out;
}

/** The spec's IR-to-tool-schema type: string, date, datetime, uuid (and binary, enum) to string; the rest as is. */
export function toolTypeOf(type: string): string | undefined {
  const t = canonicalFieldType(type);
  switch (t) {
    case 'string':
    case 'date':
    case 'datetime':
    case 'uuid':
    case 'binary':
    case 'enum':
      return 'string';
    case 'integer':
    case 'number':
    case 'boolean':
    case 'array':
    case 'object':
      return t;
    default:
      return undefined;
  }
}
