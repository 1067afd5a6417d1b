/**
 * What the MongoDB adapter adds for MongoDB-wire servers that are not MongoDB. Today that is
 * FerretDB 1.x, measured on v1.24.2 with its SQLite backend (docs/engines/ferretdb.md). Nothing
 * here changes what the port promises:
 * - filters the server evaluates differently from MongoDB are rewritten into equivalent forms it
 *   evaluates right, and the clauses it cannot evaluate at all are left to the adapter (reads);
 * - updates it would silently apply differently are rewritten or refused;
 * - unique keys are computed with MongoDB's rules (missing fields, sparse, multikey) so the adapter
 *   can check what the server's own unique indexes miss;
 * - the server's duplicate-key errors are recognised although they carry neither index nor key.
 * Everything the adapter cannot do honestly is refused with UnsupportedByServerError.
 */
import { type Doc, collectValues, isPlainObject, splitPath } from './document.util';
import { isOperatorObject } from './filter.util';
import { type IndexDefinition, valueToken } from './hash-index.util';
import type { Filter, Update } from './store.port';

/** What the adapter knows about the server behind a connection. */
export interface ServerProfile {
  /** For messages: `MongoDB 7.0.5`, `FerretDB v1.24.2`. */
  readonly label: string;
  /** FerretDB (from `buildInfo.ferretdbVersion`): filters, updates and unique keys go through this module. */
  readonly ferretdb: boolean;
  /** Multi-document transactions: a replica set member or mongos (from `hello`). */
  readonly transactions: boolean;
  /** TTL indexes: false when the server has none (known, or learnt from a refusal), undefined until tried. */
  ttlIndexes: boolean | undefined;
}

/** The profile of a server from its `buildInfo` and `hello` replies (either may be missing). */
export function serverProfile(buildInfo: Doc | undefined, hello: Doc | undefined): ServerProfile {
  const replicated = typeof hello?.setName === 'string' || hello?.msg === 'isdbgrid';
  const ferret = buildInfo?.ferretdbVersion;
  if (typeof ferret === 'string') {
    // FerretDB 1.x has neither transactions (it names a replica set in `hello` when started with
    // --repl-set-name, yet refuses `autocommit`) nor TTL indexes; later versions are taken at
    // their word and tried once.
    const v1 = Number(/^v?(\d+)/.exec(ferret)?.[1] ?? 0) < 2;
    return {
      label: `FerretDB ${ferret}`,
      ferretdb: true,
      transactions: !v1 && replicated,
      ttlIndexes: v1 ? false : undefined,
    };
  }
  const version = typeof buildInfo?.version === 'string' ? buildInfo.version : '(version unknown)';
  return { label: `MongoDB ${version}`, ferretdb: false, transactions: replicated, ttlIndexes: undefined };
}

/** A filter, update or value the server cannot handle as MongoDB would, refused instead of run differently. */
export class UnsupportedByServerError extends Error {
  readonly code = 'UNSUPPORTED_BY_SERVER';
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedByServerError';
  }
}

// ---- filters ------------------------------------------------------------------------------------

/** A filter as the server should run it, plus the conjuncts the adapter must evaluate itself. */
export interface SplitFilter {
  readonly server: Filter;
  readonly client?: Filter;
  /** What made `client` necessary, for messages (`$elemMatch on 'items'`). */
  readonly reason?: string;
}

/** An embedded-document literal (`{city: 'Oslo'}`, also `{}`), as opposed to an operator object. */
function isDocLiteral(v: unknown): v is Doc {
  return isPlainObject(v) && !isOperatorObject(v);
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== 'object' || v instanceof Date;
}

/** `$elemMatch` shapes FerretDB 1.x evaluates right: one comparison on scalar elements. */
function simpleElemMatch(m: unknown): boolean {
  if (!isOperatorObject(m)) return false;
  const ops = Object.keys(m);
  if (ops.length !== 1) return false;
  const v = m[ops[0]];
  switch (ops[0]) {
    case '$eq':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return isScalar(v);
    case '$in':
      return Array.isArray(v) && v.every(isScalar);
    default:
      return false;
  }
}

function unsupportedCondition(path: string, cond: unknown): string | undefined {
  if (!isOperatorObject(cond)) return undefined;
  for (const op of Object.keys(cond)) {
    const v = cond[op];
    if (op === '$elemMatch' && !simpleElemMatch(v)) return `$elemMatch on '${path}'`;
    if (op === '$all' && Array.isArray(v) && v.some((x) => isOperatorObject(x) && '$elemMatch' in x))
      return `$all with $elemMatch on '${path}'`;
    if (op === '$not') {
      const inner = unsupportedCondition(path, v);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** Why a filter needs the adapter's own evaluation, or undefined when the server can run it. */
function unsupportedIn(filter: Filter): string | undefined {
  for (const key of Object.keys(filter)) {
    const v = filter[key];
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (!Array.isArray(v)) continue;
      for (const sub of v) {
        const r = isPlainObject(sub) ? unsupportedIn(sub) : undefined;
        if (r) return r;
      }
      continue;
    }
    if (key.startsWith('$')) continue;
    const r = unsupportedCondition(key, filter[key]);
    if (r) return r;
  }
  return undefined;
}

/** The top-level conjuncts of a filter, one key each, with `$and` flattened. */
function conjuncts(filter: Filter): Filter[] {
  const out: Filter[] = [];
  for (const key of Object.keys(filter)) {
    const v = filter[key];
    if (key === '$and' && Array.isArray(v) && v.every(isPlainObject)) {
      for (const sub of v as Filter[]) out.push(...conjuncts(sub));
    } else {
      out.push({ [key]: v });
    }
  }
  return out;
}

/** Conjuncts back into one filter: distinct keys side by side, the rest under `$and`. */
function combine(parts: Filter[]): Filter {
  const out: Filter = {};
  const rest: Filter[] = [];
  for (const p of parts) {
    const keys = Object.keys(p);
    if (keys.length === 1 && keys[0] !== '$and' && !(keys[0] in out)) out[keys[0]] = p[keys[0]];
    else rest.push(p);
  }
  if (rest.length === 0) return out;
  if (Object.keys(out).length === 0) return rest.length === 1 ? rest[0] : { $and: rest };
  return { ...out, $and: rest };
}

/**
 * Equality with an embedded document. FerretDB 1.x matches `{f: doc}` only when `f` itself is that
 * document, never against the elements of an array `f`, and `{f: {$all: [doc]}}` only against the
 * elements; MongoDB matches both, so both forms are asked for.
 */
function docEquals(path: string, doc: Doc): Filter {
  return { $or: [{ [path]: doc }, { [path]: { $all: [doc] } }] };
}

function inWithDocs(path: string, list: unknown[]): Filter {
  const plain = list.filter((x) => !isDocLiteral(x));
  const ors: Filter[] = plain.length > 0 ? [{ [path]: { $in: plain } }] : [];
  for (const d of list) if (isDocLiteral(d)) ors.push(...(docEquals(path, d).$or as Filter[]));
  return ors.length === 1 ? ors[0] : { $or: ors };
}

/**
 * The condition on one field in forms FerretDB 1.x evaluates like MongoDB, or undefined when it
 * needs no change. Measured differences it fixes: on a dotted path through an array of documents
 * FerretDB makes all operators of one condition hold for the same element (MongoDB: each for any
 * element) and negates per element (`$ne`, `$nin`, `$not`: MongoDB negates the whole match); and
 * embedded-document equality ignores array elements. MongoDB defines `{f: {$a, $b}}` as
 * `{$and: [{f: {$a}}, {f: {$b}}]}` and `{f: {$not: c}}` / `$ne` / `$nin` as `{$nor: [{f: c}]}`,
 * so the rewrites are exact.
 */
function rewriteField(path: string, cond: unknown): Filter | undefined {
  if (isDocLiteral(cond)) return docEquals(path, cond);
  if (!isOperatorObject(cond)) return undefined;
  const dotted = path.includes('.');
  // Units of one condition: each operator alone, `$regex` with its `$options`.
  const units: Array<{ op: string; cond: Doc }> = [];
  for (const op of Object.keys(cond)) {
    if (op === '$options' && '$regex' in cond) continue;
    const unit: Doc = { [op]: cond[op] };
    if (op === '$regex' && '$options' in cond) unit.$options = cond.$options;
    units.push({ op, cond: unit });
  }
  const keep: Doc = {};
  const parts: Filter[] = [];
  let changed = false;
  for (const { op, cond: unit } of units) {
    const v = unit[op];
    let part: Filter | undefined;
    switch (op) {
      case '$eq':
        if (isDocLiteral(v)) part = docEquals(path, v);
        break;
      case '$ne':
        if (dotted || isDocLiteral(v))
          part = { $nor: [isDocLiteral(v) ? docEquals(path, v) : { [path]: { $eq: v } }] };
        break;
      case '$in':
        if (Array.isArray(v) && v.some(isDocLiteral)) part = inWithDocs(path, v);
        break;
      case '$nin':
        if (Array.isArray(v) && (dotted || v.some(isDocLiteral))) part = { $nor: [inWithDocs(path, v)] };
        break;
      case '$not': {
        const inner = rewriteField(path, v);
        if (dotted || inner) part = { $nor: [inner ?? { [path]: v }] };
        break;
      }
      case '$all':
        if (Array.isArray(v) && v.some(isDocLiteral)) {
          part = { $and: v.map((x) => (isDocLiteral(x) ? docEquals(path, x) : { [path]: { $all: [x] } })) };
        }
        break;
      default:
        break;
    }
    if (part) {
      parts.push(part);
      changed = true;
    } else if (dotted && units.length > 1) {
      parts.push({ [path]: unit });
      changed = true;
    } else {
      Object.assign(keep, unit);
    }
  }
  if (!changed) return undefined;
  if (Object.keys(keep).length > 0) parts.unshift({ [path]: keep });
  return parts.length === 1 ? parts[0] : { $and: parts };
}

function rewriteClause(clause: Filter): Filter {
  const key = Object.keys(clause)[0];
  const v = clause[key];
  if (key === '$and' || key === '$or' || key === '$nor') {
    if (!Array.isArray(v)) return clause;
    let changed = false;
    const subs = v.map((sub: unknown) => {
      if (!isPlainObject(sub)) return sub;
      const r = rewriteFilter(sub);
      if (r !== sub) changed = true;
      return r;
    });
    return changed ? { [key]: subs } : clause;
  }
  if (key.startsWith('$')) return clause;
  return rewriteField(key, v) ?? clause;
}

function rewriteFilter(filter: Filter): Filter {
  let changed = false;
  const parts = conjuncts(filter).map((c) => {
    const r = rewriteClause(c);
    if (r !== c) changed = true;
    return r;
  });
  return changed ? combine(parts) : filter;
}

/**
 * Splits a filter for FerretDB: the server gets every top-level conjunct it can evaluate (rewritten
 * where needed), the adapter evaluates the rest on what the server returns. Returns the filter
 * itself (`server === filter`) when it needs nothing.
 */
export function splitFilter(filter: Filter): SplitFilter {
  const server: Filter[] = [];
  const client: Filter[] = [];
  let reason: string | undefined;
  let changed = false;
  for (const clause of conjuncts(filter)) {
    const why = unsupportedIn(clause);
    if (why) {
      reason ??= why;
      client.push(clause);
      changed = true;
      continue;
    }
    const r = rewriteClause(clause);
    if (r !== clause) changed = true;
    server.push(r);
  }
  if (!changed) return { server: filter };
  return { server: combine(server), ...(client.length > 0 ? { client: combine(client), reason } : {}) };
}

// ---- updates ------------------------------------------------------------------------------------

const POSITIONAL = /(^|\.)\$(\[[^\]]*\])?(\.|$)/;

/** `$pull` values `$pullAll` removes identically: exact values, not conditions or patterns. */
function exactValue(v: unknown): boolean {
  return !(v instanceof RegExp) && !isOperatorObject(v);
}

/**
 * An update in a form FerretDB 1.x applies like MongoDB, or a refusal. Measured: `$pull` with a
 * condition (`{$in: [...]}`, `{$gte: 5}`, a document condition, a regex) is accepted and removes
 * nothing; `$push` ignores `$position`, `$slice` and `$sort`; positional paths fail with a
 * misleading message. `$pull: {f: {$in: list}}` is exactly `$pullAll: {f: list}` for exact values.
 */
export function rewriteUpdate(update: Update, label: string): Update {
  for (const op of Object.keys(update)) {
    const fields = update[op];
    if (!isPlainObject(fields)) continue;
    for (const path of Object.keys(fields)) {
      if (POSITIONAL.test(path))
        throw new UnsupportedByServerError(
          `${label} does not support positional updates ('${path}' in ${op})`,
        );
    }
  }
  let out: Update = update;
  const push = update.$push;
  if (isPlainObject(push)) {
    for (const path of Object.keys(push)) {
      const v = push[path];
      if (isOperatorObject(v) && '$each' in v) {
        const extra = Object.keys(v).filter((k) => k !== '$each');
        if (extra.length > 0)
          throw new UnsupportedByServerError(
            `${label} ignores ${extra.join(', ')} in $push (on '${path}'); only $each is supported`,
          );
      }
    }
  }
  const pull = update.$pull;
  if (isPlainObject(pull)) {
    const keptPull: Doc = {};
    const pullAll: Doc = isPlainObject(update.$pullAll) ? { ...update.$pullAll } : {};
    let moved = false;
    for (const path of Object.keys(pull)) {
      const v = pull[path];
      let values: unknown[] | undefined;
      if (isOperatorObject(v)) {
        const ops = Object.keys(v);
        if (ops.length === 1 && ops[0] === '$in' && Array.isArray(v.$in) && v.$in.every(exactValue))
          values = v.$in;
        else if (ops.length === 1 && ops[0] === '$eq' && exactValue(v.$eq)) values = [v.$eq];
        else
          throw new UnsupportedByServerError(
            `${label} cannot $pull with the condition ${JSON.stringify(v)} on '${path}' (it would remove nothing); use equality, $in of values or $pullAll`,
          );
      } else if (v instanceof RegExp) {
        throw new UnsupportedByServerError(`${label} cannot $pull by regular expression (on '${path}')`);
      } else if (isDocLiteral(v)) {
        throw new UnsupportedByServerError(
          `${label} cannot $pull with a document condition on '${path}' (MongoDB matches each element against it as a query; FerretDB compares it for equality)`,
        );
      }
      if (values === undefined) {
        keptPull[path] = v;
        continue;
      }
      if (path in pullAll)
        throw new TypeError(`Updating the path '${path}' would create a conflict at '${path}'`);
      pullAll[path] = values;
      moved = true;
    }
    if (moved) {
      const { $pull: _pull, $pullAll: _pullAll, ...rest } = update;
      out = { ...rest, $pullAll: pullAll, ...(Object.keys(keptPull).length > 0 ? { $pull: keptPull } : {}) };
    }
  }
  return out;
}

/** The field paths an update writes (`$rename` both ways). */
export function updatePaths(update: Update): string[] {
  const out: string[] = [];
  for (const op of Object.keys(update)) {
    const fields = update[op];
    if (!isPlainObject(fields)) continue;
    for (const path of Object.keys(fields)) {
      out.push(path);
      if (op === '$rename' && typeof fields[path] === 'string') out.push(fields[path] as string);
    }
  }
  return out;
}

/** True when writing `path` can change the value at `field` (equal, or one contains the other). */
export function pathsOverlap(path: string, field: string): boolean {
  return path === field || field.startsWith(`${path}.`) || path.startsWith(`${field}.`);
}

// ---- unique keys --------------------------------------------------------------------------------

/** One key a document has in a unique index: an exact token and the values as MongoDB reports them. */
export interface UniqueKey {
  readonly token: string;
  readonly value: Record<string, unknown>;
}

const EMPTY_ARRAY = '\0u';

function tokenOf(v: unknown): string {
  const t = valueToken(v);
  // Numbers compare by value (1 and 1.0 are one key, as in MongoDB); -0 prints as 0.
  return `${typeof t}:${String(t)}`;
}

/**
 * The keys a document has in a unique index under MongoDB's rules: an array contributes one key per
 * element (an empty one the key `undefined`), a missing field indexes as null, and a sparse index
 * leaves out (null) a document that has none of its fields.
 */
export function uniqueKeys(def: IndexDefinition, doc: Doc): UniqueKey[] | null {
  const fields = Object.keys(def.keys);
  let present = false;
  const perField = fields.map((f) => {
    const seen = new Map<string, unknown>();
    const add = (x: unknown) => seen.set(tokenOf(x), x === undefined ? null : x);
    for (const v of collectValues(doc, splitPath(f))) {
      if (v !== undefined) present = true;
      if (Array.isArray(v)) {
        if (v.length === 0) seen.set(EMPTY_ARRAY, undefined);
        for (const el of v) add(el);
      } else {
        add(v);
      }
    }
    return [...seen];
  });
  if (!present && def.sparse) return null;
  let keys: Array<{ tokens: string[]; value: Record<string, unknown> }> = [{ tokens: [], value: {} }];
  fields.forEach((f, i) => {
    keys = keys.flatMap((k) =>
      perField[i].map(([t, v]) => ({ tokens: [...k.tokens, t], value: { ...k.value, [f]: v } })),
    );
  });
  return keys.map((k) => ({ token: JSON.stringify(k.tokens), value: k.value }));
}

/**
 * A filter matching at least every stored document that can share a unique key with one of `docs`
 * (a superset: candidates are checked exactly with `uniqueKeys`). Fields holding documents are not
 * narrowed, because FerretDB's document equality is unreliable (see docEquals).
 */
export function candidatesFilter(def: IndexDefinition, docs: Doc[]): Filter {
  const fields = Object.keys(def.keys);
  const perDoc: Filter[] = [];
  for (const doc of docs) {
    const conds: Filter[] = [];
    for (const f of fields) {
      const values: unknown[] = [];
      let empty = false;
      let wide = false;
      for (const v of collectValues(doc, splitPath(f))) {
        if (Array.isArray(v) && v.length === 0) empty = true;
        for (const x of Array.isArray(v) ? v : [v]) {
          if (x === undefined || x === null) values.push(null);
          else if (isScalar(x)) values.push(x);
          else wide = true;
        }
      }
      if (wide) continue;
      const parts: Filter[] = [];
      // One value as an equality, which FerretDB pushes down to its backend's index; `$in` it scans.
      if (values.length === 1) parts.push({ [f]: values[0] });
      else if (values.length > 0) parts.push({ [f]: { $in: values } });
      if (empty) parts.push({ [f]: { $size: 0 } });
      if (parts.length > 0) conds.push(parts.length === 1 ? parts[0] : { $or: parts });
    }
    perDoc.push(conds.length === 0 ? {} : conds.length === 1 ? conds[0] : { $and: conds });
  }
  const any = perDoc.some((f) => Object.keys(f).length === 0)
    ? {}
    : perDoc.length === 1
      ? perDoc[0]
      : { $or: perDoc };
  if (!def.sparse) return any;
  const indexed = { $or: fields.map((f) => ({ [f]: { $exists: true } })) };
  return Object.keys(any).length === 0 ? indexed : { $and: [any, indexed] };
}

/** A projection with just what `uniqueKeys` reads, or undefined when the fields overlap (MongoDB refuses path collisions). */
export function keyProjection(def: IndexDefinition): Record<string, 1> | undefined {
  const fields = Object.keys(def.keys);
  for (const a of fields) for (const b of fields) if (a !== b && pathsOverlap(a, b)) return undefined;
  const p: Record<string, 1> = { _id: 1 };
  for (const f of fields) p[f] = 1;
  return p;
}

// ---- errors -------------------------------------------------------------------------------------

function errorCode(e: unknown): unknown {
  return e instanceof Error ? (e as { code?: unknown }).code : undefined;
}

const SQLITE_UNIQUE = /UNIQUE constraint failed: index '([^']+)'/;
/** The PostgreSQL backend's form of the same (SQLSTATE 23505), for writes and for index builds. */
const PG_UNIQUE = /(?:duplicate key value violates unique constraint|could not create unique index) "([^"]+)"/;

/**
 * A unique-index violation as MongoDB (E11000) or FerretDB reports it. FerretDB's SQLite backend
 * sends E11000 for inserts and upserts, but an InternalError (code 1) naming the SQLite index for
 * updates, replacements, findAndModify and index builds.
 */
export function isDuplicateKeyFailure(e: unknown): boolean {
  const code = errorCode(e);
  if (code === 11000 || code === 11001) return true;
  return code === 1 && e instanceof Error && (SQLITE_UNIQUE.test(e.message) || PG_UNIQUE.test(e.message));
}

export interface DuplicateDetails {
  /** Index name from a MongoDB message (`index: email_1 dup key`). */
  readonly index?: string;
  /** The SQLite index FerretDB names (`<table>_<hash>_<index>`). */
  readonly serverIndex?: string;
  readonly key?: Record<string, unknown>;
  /** Position of the failing document in an ordered insertMany. */
  readonly position?: number;
}

interface BulkLike {
  keyValue?: Record<string, unknown>;
  writeErrors?: Array<{
    index?: number;
    errmsg?: string;
    err?: { keyValue?: Record<string, unknown>; errmsg?: string };
  }>;
  result?: { insertedCount?: number };
}

/** What a duplicate-key error says about the index, the key and the failing document. */
export function duplicateDetails(e: unknown): DuplicateDetails {
  const err = e as Error & BulkLike;
  const first = Array.isArray(err.writeErrors) ? err.writeErrors[0] : undefined;
  const message = [err.message, first?.errmsg, first?.err?.errmsg].filter(Boolean).join(' ');
  const index = /index: (\S+) dup key/.exec(message)?.[1] ?? /index: (\S+)/.exec(message)?.[1];
  const serverIndex = SQLITE_UNIQUE.exec(message)?.[1] ?? PG_UNIQUE.exec(message)?.[1];
  const key = err.keyValue ?? first?.err?.keyValue;
  const position = typeof first?.index === 'number' ? first.index : err.result?.insertedCount;
  return {
    ...(index !== undefined ? { index } : {}),
    ...(serverIndex !== undefined ? { serverIndex } : {}),
    ...(key !== undefined ? { key } : {}),
    ...(typeof position === 'number' ? { position } : {}),
  };
}

/**
 * The index (of `names`) a FerretDB server-side index name stands for: the longest `_<name>`
 * suffix. SQLite names it `<table>_<hash>_<name>`; PostgreSQL `<table>_<hash>_<name>_<hash>_idx`,
 * with the name lower-cased and every character but a-z and `_` replaced by `_`.
 */
export function indexFromServerName(serverIndex: string, names: string[]): string | undefined {
  const pg = /_[0-9a-f]{8}_idx$/.test(serverIndex);
  const bare = pg ? serverIndex.replace(/_[0-9a-f]{8}_idx$/, '') : serverIndex;
  let best: string | undefined;
  for (const n of names) {
    const form = pg ? n.toLowerCase().replace(/[^a-z_]/g, '_') : n;
    if (bare.endsWith(`_${form}`) && (best === undefined || n.length > best.length)) best = n;
  }
  return best;
}

/** FerretDB 1.x refuses nested arrays (`[[1, 2]]`) with BadValue. */
export function isNestedArrayRefusal(e: unknown): boolean {
  return errorCode(e) === 2 && e instanceof Error && /nested arrays are not supported/.test(e.message);
}

/** A server refusing an index option it does not implement (FerretDB: NotImplemented, code 238). */
export function isIndexOptionRefusal(e: unknown, option: string): boolean {
  const code = errorCode(e);
  return (code === 238 || code === 197) && e instanceof Error && e.message.includes(option);
}
