/**
 * Payload filters: validates either filter form (equality shorthand or Qdrant-style clauses) into
 * one normalised clause tree, which the Qdrant adapter sends as is and the embedded adapter
 * compiles into a predicate. Keeping one normaliser is what makes both backends accept, reject and
 * match the same filters.
 */
import { VectorFilterError } from './vector-store.errors';
import { canonicalPointId, pointIdKey } from './vector-input.validator';
import type { VectorPayload, VectorPointId, VectorScalar } from './vector-store.port';

/** A validated condition, already in the exact JSON shape Qdrant accepts. */
export type NormalizedCondition =
  | { key: string; match: { value: string | number | boolean } }
  | { key: string; match: { any: string[] | number[] } }
  | { key: string; match: { except: string[] | number[] } }
  | { key: string; range: { gt?: number; gte?: number; lt?: number; lte?: number } }
  | { key: string; geo_radius: { center: { lon: number; lat: number }; radius: number } }
  | { is_empty: { key: string } }
  | { is_null: { key: string } }
  | { has_id: VectorPointId[] }
  | { nested: { key: string; filter: NormalizedFilter } }
  | NormalizedFilter
  | VerbatimCondition;

/**
 * A condition only Qdrant evaluates (geo bounding box and polygon, values_count, datetime_range, has_vector, full-text
 * match, or any other key Qdrant knows), kept exactly as the caller wrote it. Only produced with
 * `{verbatim: true}`, which the Qdrant path uses; the embedded engine never receives one.
 */
export interface VerbatimCondition {
  readonly [VERBATIM]: true;
  readonly [key: string]: unknown;
}

const VERBATIM = Symbol('verbatim');

/** Options of `normalizeVectorFilter`. */
export interface NormalizeFilterOptions {
  /**
   * Pass conditions this normaliser does not implement to the backend unchanged instead of
   * rejecting them (Qdrant: the spec forwards `filter` verbatim). Structure the normaliser does
   * implement is still validated, with its clear messages.
   */
  verbatim?: boolean;
}

function verbatim(cond: Record<string, unknown>): VerbatimCondition {
  const copy = structuredClone(cond) as Record<string | symbol, unknown>;
  // Non-enumerable: JSON serialisation (the request to Qdrant) sends the caller's object as it was.
  Object.defineProperty(copy, VERBATIM, { value: true, enumerable: false });
  return copy as unknown as VerbatimCondition;
}

/** True for a condition passed through by `{verbatim: true}`. */
export function isVerbatimCondition(cond: unknown): cond is VerbatimCondition {
  return typeof cond === 'object' && cond !== null && (cond as Record<symbol, unknown>)[VERBATIM] === true;
}

/** A validated filter; empty clause lists are omitted (Qdrant and the embedded engine then agree on their meaning). */
export interface NormalizedFilter {
  must?: NormalizedCondition[];
  should?: NormalizedCondition[];
  must_not?: NormalizedCondition[];
  min_should?: { conditions: NormalizedCondition[]; min_count: number };
}

/** Evaluates a filter against one stored point. */
export type PointPredicate = (id: VectorPointId, payload: VectorPayload) => boolean;

const CLAUSE_KEYS = new Set(['must', 'should', 'must_not', 'min_should']);
const RANGE_KEYS = new Set(['gt', 'gte', 'lt', 'lte']);
const UNSUPPORTED_FIELD_KEYS = [
  'geo_bounding_box',
  'geo_polygon',
  'values_count',
  'datetime_range',
];
const UNSUPPORTED_CONDITIONS = ['has_vector'];
const UNSUPPORTED_MATCH_KEYS = ['text', 'text_any', 'phrase'];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when `filter` is the Qdrant-style clause form rather than the equality shorthand. */
export function isClauseFilter(filter: Record<string, unknown>): boolean {
  const entries = Object.entries(filter);
  // A clause value is always an object or array; an equality value is always a scalar, so a payload
  // field literally named `must` can still be matched with the shorthand.
  return (
    entries.length > 0 && entries.every(([k, v]) => CLAUSE_KEYS.has(k) && typeof v === 'object' && v !== null)
  );
}

/** Validates and normalises either filter form; throws `VectorFilterError` naming the offending path. */
export function normalizeVectorFilter(filter: unknown, options: NormalizeFilterOptions = {}): NormalizedFilter {
  if (!isObject(filter)) throw new VectorFilterError('a filter must be an object', '');
  const lenient = options.verbatim === true;
  return isClauseFilter(filter) ? normalizeClauses(filter, '', lenient) : normalizeEquality(filter);
}

function normalizeEquality(filter: Record<string, unknown>): NormalizedFilter {
  const must: NormalizedCondition[] = [];
  for (const [key, value] of Object.entries(filter)) {
    assertKey(key, key);
    if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number') {
      throw new VectorFilterError(
        'equality values must be strings, numbers or booleans; use the clause form for more',
        key,
      );
    }
    must.push(matchValue(key, value, key));
  }
  return must.length ? { must } : {};
}

function matchValue(key: string, value: VectorScalar, path: string): NormalizedCondition {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new VectorFilterError('numbers must be finite', path);
    // Qdrant's match accepts only integers; a closed range of width zero is its exact float equality.
    if (!Number.isInteger(value)) return { key, range: { gte: value, lte: value } };
  }
  return { key, match: { value } };
}

function assertKey(key: unknown, path: string): asserts key is string {
  if (typeof key !== 'string' || key === '' || key.split('.').some((s) => s === '' || s === '[]')) {
    throw new VectorFilterError(
      'a payload key must be a non-empty dotted path such as "a.b" or "items[].kind"',
      path,
    );
  }
}

function list(value: unknown, path: string): unknown[] {
  if (Array.isArray(value)) return value;
  if (isObject(value)) return [value];
  throw new VectorFilterError('expected a condition or an array of conditions', path);
}

function normalizeClauses(filter: Record<string, unknown>, path: string, lenient: boolean): NormalizedFilter {
  const out: NormalizedFilter = {};
  for (const [clause, value] of Object.entries(filter)) {
    const at = path ? `${path}.${clause}` : clause;
    if (clause === 'min_should') {
      if (!isObject(value) || !Array.isArray(value.conditions)) {
        throw new VectorFilterError('min_should must be {conditions: [...], min_count}', at);
      }
      const minCount = value.min_count;
      if (typeof minCount !== 'number' || !Number.isInteger(minCount) || minCount < 0) {
        throw new VectorFilterError('min_count must be a non-negative integer', `${at}.min_count`);
      }
      const conditions = value.conditions.map((c, i) => normalizeCondition(c, `${at}.conditions[${i}]`, lenient));
      if (minCount > 0) out.min_should = { conditions, min_count: minCount };
      continue;
    }
    if (clause !== 'must' && clause !== 'should' && clause !== 'must_not') {
      throw new VectorFilterError(`unknown clause "${clause}" (use must, should, must_not, min_should)`, at);
    }
    const conditions = list(value, at).map((c, i) => normalizeCondition(c, `${at}[${i}]`, lenient));
    if (conditions.length) out[clause] = conditions;
  }
  return out;
}

function normalizeCondition(cond: unknown, path: string, lenient: boolean): NormalizedCondition {
  if (!isObject(cond)) throw new VectorFilterError('a condition must be an object', path);
  const keys = Object.keys(cond);
  for (const k of UNSUPPORTED_CONDITIONS) {
    if (k in cond) {
      if (lenient) return verbatim(cond);
      throw new VectorFilterError(`"${k}" conditions are not supported`, path);
    }
  }
  if ('key' in cond) return normalizeField(cond, path, lenient);
  if (keys.length === 1 && (keys[0] === 'is_empty' || keys[0] === 'is_null')) {
    const inner = cond[keys[0]];
    if (!isObject(inner)) throw new VectorFilterError(`${keys[0]} must be {key}`, `${path}.${keys[0]}`);
    assertKey(inner.key, `${path}.${keys[0]}.key`);
    return keys[0] === 'is_empty' ? { is_empty: { key: inner.key } } : { is_null: { key: inner.key } };
  }
  if (keys.length === 1 && keys[0] === 'has_id') {
    if (!Array.isArray(cond.has_id))
      throw new VectorFilterError('has_id must be an array of point ids', `${path}.has_id`);
    return {
      has_id: cond.has_id.map((id, i) => {
        try {
          return canonicalPointId(id);
        } catch (err) {
          throw new VectorFilterError((err as Error).message, `${path}.has_id[${i}]`);
        }
      }),
    };
  }
  if (keys.length === 1 && keys[0] === 'nested') {
    const nested = cond.nested;
    if (!isObject(nested) || !isObject(nested.filter)) {
      throw new VectorFilterError('nested must be {key, filter}', `${path}.nested`);
    }
    assertKey(nested.key, `${path}.nested.key`);
    return { nested: { key: nested.key, filter: normalizeClauses(nested.filter, `${path}.nested.filter`, lenient) } };
  }
  if (keys.length > 0 && keys.every((k) => CLAUSE_KEYS.has(k))) return normalizeClauses(cond, path, lenient);
  if (lenient) return verbatim(cond);
  throw new VectorFilterError(
    `unsupported condition with keys ${keys.map((k) => `"${k}"`).join(', ') || '(none)'}; ` +
      'supported: {key, match}, {key, range}, {key, geo_radius}, is_empty, is_null, has_id, nested and nested must/should/must_not',
    path,
  );
}

function normalizeField(cond: Record<string, unknown>, path: string, lenient: boolean): NormalizedCondition {
  assertKey(cond.key, `${path}.key`);
  const key = cond.key;
  for (const k of UNSUPPORTED_FIELD_KEYS) {
    if (k in cond) {
      if (lenient) return verbatim(cond);
      throw new VectorFilterError(`"${k}" conditions are not supported`, `${path}.${k}`);
    }
  }
  const extra = Object.keys(cond).filter((k) => k !== 'key' && k !== 'match' && k !== 'range' && k !== 'geo_radius');
  if (extra.length) {
    if (lenient) return verbatim(cond);
    throw new VectorFilterError(`unknown field condition keys: ${extra.join(', ')}`, path);
  }
  if (lenient && isObject(cond.match) && UNSUPPORTED_MATCH_KEYS.some((k) => k in (cond.match as object))) return verbatim(cond);
  const given = ['match', 'range', 'geo_radius'].filter((k) => cond[k] !== undefined);
  if (given.length !== 1)
    throw new VectorFilterError('a field condition needs exactly one of match, range or geo_radius', path);
  if (given[0] === 'geo_radius') return normalizeGeoRadius(key, cond.geo_radius, `${path}.geo_radius`);
  return given[0] === 'match'
    ? normalizeMatch(key, cond.match, `${path}.match`)
    : normalizeRange(key, cond.range, `${path}.range`);
}

/** A `{lon, lat}` in degrees within the globe's bounds (what Qdrant accepts), or undefined. */
function geoPoint(value: unknown): { lon: number; lat: number } | undefined {
  if (!isObject(value)) return undefined;
  const { lon, lat } = value;
  if (typeof lon !== 'number' || typeof lat !== 'number' || !Number.isFinite(lon) || !Number.isFinite(lat)) return undefined;
  if (lon < -180 || lon > 180 || lat < -90 || lat > 90) return undefined;
  return { lon, lat };
}

function normalizeGeoRadius(key: string, geo: unknown, path: string): NormalizedCondition {
  if (!isObject(geo)) throw new VectorFilterError('geo_radius must be {center: {lon, lat}, radius}', path);
  const unknown = Object.keys(geo).filter((k) => k !== 'center' && k !== 'radius');
  if (unknown.length) throw new VectorFilterError(`unknown geo_radius keys: ${unknown.join(', ')}`, path);
  const center = geoPoint(geo.center);
  if (!center) {
    throw new VectorFilterError('center must be {lon, lat} with lon in [-180, 180] and lat in [-90, 90] (degrees)', `${path}.center`);
  }
  const radius = geo.radius;
  if (typeof radius !== 'number' || !Number.isFinite(radius) || radius < 0) {
    throw new VectorFilterError('radius must be a non-negative number of metres', `${path}.radius`);
  }
  return { key, geo_radius: { center, radius } };
}

function normalizeMatch(key: string, match: unknown, path: string): NormalizedCondition {
  if (!isObject(match)) throw new VectorFilterError('match must be an object', path);
  for (const k of UNSUPPORTED_MATCH_KEYS) {
    if (k in match) throw new VectorFilterError(`full-text match "${k}" is not supported`, path);
  }
  const keys = Object.keys(match);
  if (keys.length !== 1)
    throw new VectorFilterError('match must have exactly one of value, any, except', path);
  const [kind] = keys;
  if (kind === 'value') {
    const value = match.value;
    if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number') {
      throw new VectorFilterError('match.value must be a string, number or boolean', `${path}.value`);
    }
    return matchValue(key, value, `${path}.value`);
  }
  if (kind === 'any' || kind === 'except') {
    const values = match[kind];
    // Qdrant's AnyVariants: a list of keywords or a list of integers, never mixed.
    const ok =
      Array.isArray(values) &&
      (values.every((v) => typeof v === 'string') ||
        values.every((v) => typeof v === 'number' && Number.isSafeInteger(v)));
    if (!ok)
      throw new VectorFilterError(
        `match.${kind} must be an array of strings or an array of integers`,
        `${path}.${kind}`,
      );
    const copy = [...values] as string[] | number[];
    return kind === 'any' ? { key, match: { any: copy } } : { key, match: { except: copy } };
  }
  throw new VectorFilterError(`unknown match kind "${kind}" (use value, any, except)`, path);
}

function normalizeRange(key: string, range: unknown, path: string): NormalizedCondition {
  if (!isObject(range)) throw new VectorFilterError('range must be an object {gt?, gte?, lt?, lte?}', path);
  const out: { gt?: number; gte?: number; lt?: number; lte?: number } = {};
  for (const [k, v] of Object.entries(range)) {
    if (!RANGE_KEYS.has(k)) throw new VectorFilterError(`unknown range bound "${k}"`, path);
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new VectorFilterError(
        'range bounds must be finite numbers (datetime ranges are not supported)',
        `${path}.${k}`,
      );
    }
    out[k as keyof typeof out] = v;
  }
  if (Object.keys(out).length === 0) throw new VectorFilterError('range needs at least one bound', path);
  return { key, range: out };
}

/** Compiles a filter (either form) into a predicate over stored points, validating it first. */
export function compileVectorFilter(filter: unknown): PointPredicate {
  return compileFilter(normalizeVectorFilter(filter));
}

/** Compiles an already normalised filter into a predicate. */
export function compileFilter(filter: NormalizedFilter): PointPredicate {
  const must = (filter.must ?? []).map(compileCondition);
  const should = (filter.should ?? []).map(compileCondition);
  const mustNot = (filter.must_not ?? []).map(compileCondition);
  const minShould = filter.min_should
    ? { conditions: filter.min_should.conditions.map(compileCondition), count: filter.min_should.min_count }
    : null;
  return (id, payload) => {
    for (const c of must) if (!c(id, payload)) return false;
    for (const c of mustNot) if (c(id, payload)) return false;
    if (should.length && !should.some((c) => c(id, payload))) return false;
    if (minShould) {
      let n = 0;
      for (const c of minShould.conditions) if (c(id, payload) && ++n >= minShould.count) break;
      if (n < minShould.count) return false;
    }
    return true;
  };
}

function compileCondition(cond: NormalizedCondition): PointPredicate {
  if (isVerbatimCondition(cond)) {
    // Unreachable through the adapters: only the Qdrant path normalises with `verbatim`.
    throw new VectorFilterError(`condition ${JSON.stringify(cond)} is evaluated by Qdrant only`, '');
  }
  if ('key' in cond) {
    const path = parsePath(cond.key);
    if ('geo_radius' in cond) {
      const { center, radius } = cond.geo_radius;
      // A payload value that is not a valid geo point never matches, as in Qdrant.
      const within = (x: unknown): boolean => {
        const p = geoPoint(x);
        return p !== undefined && haversineMetres(center, p) <= radius;
      };
      // A point object is a leaf, an array of points matches when one does: `someValue` walks it so.
      return (_id, payload) => someValue(payload, path, 0, within);
    }
    if ('range' in cond) {
      const { gt, gte, lt, lte } = cond.range;
      const inRange = (x: unknown): boolean =>
        typeof x === 'number' &&
        (gt === undefined || x > gt) &&
        (gte === undefined || x >= gte) &&
        (lt === undefined || x < lt) &&
        (lte === undefined || x <= lte);
      return (_id, payload) => someValue(payload, path, 0, inRange);
    }
    const match = cond.match;
    if ('value' in match) {
      const want = match.value;
      return (_id, payload) => someValue(payload, path, 0, (x) => x === want);
    }
    if ('any' in match) {
      const set = new Set<unknown>(match.any);
      return (_id, payload) => someValue(payload, path, 0, (x) => set.has(x));
    }
    const set = new Set<unknown>(match.except);
    return (_id, payload) => someValue(payload, path, 0, (x) => !set.has(x));
  }
  if ('is_empty' in cond) {
    const path = parsePath(cond.is_empty.key);
    return (_id, payload) =>
      leafValues(payload, path).every((v) => v === null || (Array.isArray(v) && v.length === 0));
  }
  if ('is_null' in cond) {
    const path = parsePath(cond.is_null.key);
    return (_id, payload) => leafValues(payload, path).some((v) => v === null);
  }
  if ('has_id' in cond) {
    const ids = new Set(cond.has_id.map(pointIdKey));
    return (id) => ids.has(pointIdKey(id));
  }
  if ('nested' in cond) {
    const path = parsePath(cond.nested.key);
    const inner = compileFilter(cond.nested.filter);
    return (id, payload) => someValue(payload, path, 0, (el) => isObject(el) && inner(id, el));
  }
  return compileFilter(cond);
}

/** Mean Earth radius in metres (IUGG), the one Qdrant's geo crate uses. */
const EARTH_RADIUS_M = 6_371_008.8;

/** Great-circle distance in metres between two points given in degrees. */
export function haversineMetres(a: { lon: number; lat: number }, b: { lon: number; lat: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Path segments of a dotted key; `[]` suffixes are accepted and arrays are walked either way. */
function parsePath(key: string): string[] {
  return key.split('.').map((s) => (s.endsWith('[]') ? s.slice(0, -2) : s));
}

/** The raw values at `path`, walking into every element of arrays met on the way. */
function leafValues(payload: unknown, path: string[]): unknown[] {
  let current: unknown[] = [payload];
  for (const segment of path) {
    const next: unknown[] = [];
    for (const node of current) {
      for (const item of Array.isArray(node) ? node : [node]) {
        if (isObject(item) && Object.prototype.hasOwnProperty.call(item, segment)) next.push(item[segment]);
      }
    }
    current = next;
  }
  return current;
}

/**
 * True when `test` holds for some value at `path` (from segment `depth`), walking into arrays met
 * on the way and into an array leaf (an array field matches when any element does, as in Qdrant).
 * Allocation-free: it runs once per stored point on a filtered query.
 */
function someValue(node: unknown, path: string[], depth: number, test: (v: unknown) => boolean): boolean {
  if (Array.isArray(node)) {
    for (const el of node) {
      if (depth === path.length ? test(el) : someValue(el, path, depth, test)) return true;
    }
    return false;
  }
  if (depth === path.length) return test(node);
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, path[depth])) return false;
  return someValue((node as Record<string, unknown>)[path[depth]], path, depth + 1, test);
}
