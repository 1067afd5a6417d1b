import fc from 'fast-check';
import type { OpenApiDoc, Schema } from './openapi-operations';

/**
 * Strings that have broken parsers, stores and path handling elsewhere: operator and prototype keys,
 * traversal (plain and percent-encoded), template and injection syntax, control and odd Unicode
 * characters, and a long one.
 */
export const HOSTILE_STRINGS = [
  '$where',
  '$gt',
  '__proto__',
  'constructor',
  'prototype',
  '../../../../etc/passwd',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%2f..%2f',
  '{{7*7}}',
  '${process.exit()}',
  "' OR '1'='1",
  '<script>alert(1)</script>',
  '\u0000',
  '\ud800',
  '\u202e',
  'a'.repeat(10_000),
  '',
  ' ',
  'NaN',
  '-1',
  '1e309',
];

/** JSON values of the wrong shape for almost any schema. */
const wrongValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constantFrom<unknown>(null, true, 0, -1, 1.5, 2 ** 53, -(2 ** 60), '', [], {}, [null], { $where: 'sleep(1000)' }, JSON.parse('{"__proto__":{"polluted":true}}'), { constructor: { prototype: { polluted: true } } }),
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.jsonValue({ maxDepth: 3 }),
  );

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  'date-time': () => fc.date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true }).map((d) => d.toISOString()),
  date: () => fc.date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  email: () => fc.emailAddress(),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  uuid: () => fc.uuid(),
};

function merge(doc: OpenApiDoc, parts: Schema[]): Schema {
  const out: Schema = { properties: {}, required: [] };
  for (const p of parts.map((x) => resolve(doc, x))) {
    Object.assign(out, { ...p, properties: { ...out.properties, ...(p.properties ?? {}) }, required: [...out.required, ...(p.required ?? [])] });
  }
  delete out.allOf;
  return out;
}

function resolve(doc: OpenApiDoc, s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; i < 20 && typeof cur.$ref === 'string'; i++) cur = doc.components.schemas[cur.$ref.split('/').pop()!] ?? {};
  return cur.allOf ? merge(doc, cur.allOf) : cur;
}

/**
 * An arbitrary of values of `schema` that are mostly valid (types, enums, bounds, required keys),
 * and, with `invalid` weight, of values that break it anywhere in the tree: a wrong type, a hostile
 * string, an extra operator key. References are followed to `depth` levels, then left empty.
 */
export function arbitraryOf(doc: OpenApiDoc, schema: Schema | undefined, invalid = 1, depth = 4): fc.Arbitrary<unknown> {
  const valid = validOf(doc, schema, invalid, depth);
  return invalid > 0 ? fc.oneof({ weight: 6, arbitrary: valid }, { weight: invalid, arbitrary: wrongValue() }) : valid;
}

function validOf(doc: OpenApiDoc, raw: Schema | undefined, invalid: number, depth: number): fc.Arbitrary<unknown> {
  const s = resolve(doc, raw);
  const sub = (x: Schema | undefined) => (depth > 0 ? arbitraryOf(doc, x, invalid, depth - 1) : fc.constant(undefined));
  let arb: fc.Arbitrary<unknown>;
  if (Array.isArray(s.enum) && s.enum.length) arb = fc.constantFrom(...s.enum);
  else if (s.const !== undefined) arb = fc.constant(s.const);
  else if (Array.isArray(s.oneOf ?? s.anyOf) && (s.oneOf ?? s.anyOf).length) arb = fc.oneof(...(s.oneOf ?? s.anyOf).map((x: Schema) => sub(x)));
  else {
    const type = Array.isArray(s.type) ? s.type[0] : (s.type ?? (s.properties ? 'object' : s.items ? 'array' : undefined));
    switch (type) {
      case 'string': {
        const max = Math.min(s.maxLength ?? 40, 200);
        const min = Math.min(s.minLength ?? 0, max);
        arb = s.format && FORMATS[s.format] ? FORMATS[s.format]() : fc.oneof({ weight: 4, arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }) }, { weight: 1, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/) });
        break;
      }
      case 'integer':
        arb = fc.integer({ min: Math.max(s.minimum ?? -1000, -(2 ** 31)), max: Math.min(s.maximum ?? 100_000, 2 ** 31) });
        break;
      case 'number':
        arb = fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
        break;
      case 'boolean':
        arb = fc.boolean();
        break;
      case 'array':
        arb = fc.array(sub(s.items), { maxLength: Math.min(s.maxItems ?? 4, 4), minLength: Math.min(s.minItems ?? 0, 4) });
        break;
      case 'object': {
        const props = Object.entries((s.properties ?? {}) as Record<string, Schema>);
        const required = new Set<string>(s.required ?? []);
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, v] of props) record[k] = sub(v);
        const known = props.length
          ? fc.record(record, { requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)) })
          : fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), depth > 0 ? fc.jsonValue({ maxDepth: 2 }) : fc.constant(null), { maxKeys: 4 });
        // Now and then an operator or prototype key rides along with valid fields.
        arb = invalid > 0 ? fc.tuple(known, fc.option(fc.constantFrom('$where', '__proto__', 'constructor', '$set'), { freq: 5 })).map(([o, k]) => (k ? { ...(o as object), [k]: k === 'constructor' ? { prototype: { polluted: true } } : { polluted: true } } : o)) : known;
        break;
      }
      default:
        arb = fc.jsonValue({ maxDepth: 2 });
    }
  }
  return s.nullable ? fc.option(arb, { nil: null, freq: 8 }) : arb;
}

/** A value as it travels in a path segment or query string. */
export function asParam(v: unknown): string {
  if (v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}
