/**
 * A JSON Schema validator for @rjsf/core that compiles nothing: @rjsf/validator-ajv8 builds its
 * checks with `new Function`, which the console's Content-Security-Policy (no 'unsafe-eval')
 * forbids, and its precompiled mode needs every schema at build time, while node settings schemas
 * arrive at run time (remote nodes register their own). This interpreter covers the keywords node
 * settings use — type, required, enum, const, minimum/maximum (and exclusive), minLength/maxLength,
 * pattern, minItems/maxItems, items, properties, additionalProperties: false — and answers in the
 * shapes rjsf expects. The server stays the judge: saving a version answers 400 naming each bad
 * field, which the console pins beside it (ADR console-validator-under-csp).
 */
import type { JsonSchema, Translate } from './flow-types';
import { plainT } from './flow-types';

/** One problem, as rjsf's `RJSFValidationError`. */
export interface FieldError {
  name: string;
  property: string;
  message: string;
  stack: string;
  params?: Record<string, unknown>;
  schemaPath?: string;
}

/** rjsf's ErrorSchema: `{__errors: [...]}` at each level, keyed by property. */
export type ErrorTree = { __errors?: string[]; [key: string]: unknown };

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(expected: string, v: unknown): boolean {
  const actual = typeOf(v);
  return expected === actual || (expected === 'number' && actual === 'integer');
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Every problem of `data` against `schema`; `path` is the rjsf property path (`.a.b`, `.list.0`). */
export function validateValue(schema: JsonSchema | boolean | undefined, data: unknown, $t: Translate = plainT, path = ''): FieldError[] {
  if (schema === undefined || schema === true) return [];
  const errs: FieldError[] = [];
  const add = (name: string, message: string, at = path, params?: Record<string, unknown>) => errs.push({ name, property: at || '.', message, stack: `${at || '.'} ${message}`.trim(), params });
  if (schema === false) {
    add('false schema', $t('validate.notAllowed', 'is not allowed'));
    return errs;
  }
  if (data === undefined) return errs;
  const s = schema as Record<string, unknown>;
  const types = Array.isArray(s['type']) ? (s['type'] as string[]) : typeof s['type'] === 'string' ? [s['type'] as string] : [];
  if (types.length && !types.some((ty) => typeMatches(ty, data))) {
    add('type', $t('validate.type', 'must be {type}', { type: types.join(' or ') }), path, { type: types });
    return errs;
  }
  if (Array.isArray(s['enum']) && !(s['enum'] as unknown[]).some((e) => deepEqual(e, data))) add('enum', $t('validate.enum', 'must be one of: {values}', { values: (s['enum'] as unknown[]).map((e) => JSON.stringify(e)).join(', ') }));
  if ('const' in s && !deepEqual(s['const'], data)) add('const', $t('validate.const', 'must be {value}', { value: JSON.stringify(s['const']) }));
  if (typeof data === 'number') {
    const n = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
    const min = n('minimum'), max = n('maximum'), xmin = n('exclusiveMinimum'), xmax = n('exclusiveMaximum');
    if (min !== undefined && data < min) add('minimum', $t('validate.minimum', 'must be at least {limit}', { limit: min }));
    if (max !== undefined && data > max) add('maximum', $t('validate.maximum', 'must be at most {limit}', { limit: max }));
    if (xmin !== undefined && data <= xmin) add('exclusiveMinimum', $t('validate.exclusiveMinimum', 'must be more than {limit}', { limit: xmin }));
    if (xmax !== undefined && data >= xmax) add('exclusiveMaximum', $t('validate.exclusiveMaximum', 'must be less than {limit}', { limit: xmax }));
  }
  if (typeof data === 'string') {
    const len = [...data].length;
    if (typeof s['minLength'] === 'number' && len < (s['minLength'] as number)) add('minLength', $t('validate.minLength', 'must have at least {limit} characters', { limit: s['minLength'] as number }));
    if (typeof s['maxLength'] === 'number' && len > (s['maxLength'] as number)) add('maxLength', $t('validate.maxLength', 'must have at most {limit} characters', { limit: s['maxLength'] as number }));
    if (typeof s['pattern'] === 'string') {
      let re: RegExp | undefined;
      try {
        re = new RegExp(s['pattern'] as string, 'u');
      } catch {
        re = undefined;
      }
      if (re && !re.test(data)) add('pattern', $t('validate.pattern', 'must match {pattern}', { pattern: s['pattern'] as string }));
    }
  }
  if (Array.isArray(data)) {
    if (typeof s['minItems'] === 'number' && data.length < (s['minItems'] as number)) add('minItems', $t('validate.minItems', 'must have at least {limit} items', { limit: s['minItems'] as number }));
    if (typeof s['maxItems'] === 'number' && data.length > (s['maxItems'] as number)) add('maxItems', $t('validate.maxItems', 'must have at most {limit} items', { limit: s['maxItems'] as number }));
    if (s['items'] && typeof s['items'] === 'object' && !Array.isArray(s['items'])) data.forEach((item, i) => errs.push(...validateValue(s['items'] as JsonSchema, item, $t, `${path}.${i}`)));
  }
  if (typeOf(data) === 'object') {
    const obj = data as Record<string, unknown>;
    const props = (s['properties'] ?? {}) as Record<string, JsonSchema>;
    for (const key of Array.isArray(s['required']) ? (s['required'] as string[]) : []) {
      if (obj[key] === undefined || obj[key] === '') add('required', $t('validate.required', 'is required'), `${path}.${key}`, { missingProperty: key });
    }
    for (const [key, value] of Object.entries(obj)) {
      if (key in props) errs.push(...validateValue(props[key], value, $t, `${path}.${key}`));
      else if (s['additionalProperties'] === false && value !== undefined) add('additionalProperties', $t('validate.additional', 'is not a setting of this node'), `${path}.${key}`);
      else if (s['additionalProperties'] && typeof s['additionalProperties'] === 'object') errs.push(...validateValue(s['additionalProperties'] as JsonSchema, value, $t, `${path}.${key}`));
    }
  }
  return errs;
}

/** rjsf's ErrorSchema of a list of problems. */
export function toErrorTree(errors: FieldError[]): ErrorTree {
  const root: ErrorTree = {};
  for (const e of errors) {
    let at: ErrorTree = root;
    for (const part of e.property.split('.').filter(Boolean)) at = (at[part] ??= {}) as ErrorTree;
    (at.__errors ??= []).push(e.message);
  }
  return root;
}

/** The validator object @rjsf/core's `validator` prop takes (rjsf's ValidatorType). */
export function createSettingsValidator($t: Translate = plainT) {
  return {
    validateFormData(formData: unknown, schema: JsonSchema, customValidate?: unknown, transformErrors?: (errors: FieldError[], uiSchema?: unknown) => FieldError[], uiSchema?: unknown) {
      let errors = validateValue(schema, formData, $t);
      if (transformErrors) errors = transformErrors(errors, uiSchema);
      return { errors, errorSchema: toErrorTree(errors) };
    },
    isValid(schema: JsonSchema, formData: unknown, _rootSchema?: JsonSchema): boolean {
      return validateValue(schema, formData, $t).length === 0;
    },
    rawValidation(schema: JsonSchema, formData?: unknown) {
      return { errors: validateValue(schema, formData, $t) };
    },
    reset() {},
  };
}
