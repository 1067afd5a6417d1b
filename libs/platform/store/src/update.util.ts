/**
 * Update documents for the embedded engine: validation with MongoDB's error cases, `$setOnInsert`
 * (which mingo lacks) and application through mingo's updater, which implements `$set`, `$unset`,
 * `$inc`, `$push` (with `$each`, `$slice`, `$sort`, `$position`), `$addToSet`, `$pull`, `$min`,
 * `$max`, `$mul`, `$rename`, `$pop`, `$pullAll` and `$currentDate` with MongoDB semantics.
 */
import { update as mingoUpdate } from 'mingo';
import { isDeepStrictEqual } from 'node:util';
import { cloneValue, type Doc, getPath, isPlainObject, normalizeValue, splitPath } from './document.util';
import type { Update } from './store.port';

const OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$push',
  '$addToSet',
  '$pull',
  '$setOnInsert',
  '$min',
  '$max',
  '$mul',
  '$rename',
  '$pop',
  '$pullAll',
  '$currentDate',
]);

type Modifier = Parameters<typeof mingoUpdate>[1];

/** A validated update, normalized once per call and applied to each matched document. */
export interface PreparedUpdate {
  readonly modifier: Record<string, Doc>;
  readonly onInsert?: Doc;
  readonly numeric: string[][];
  readonly arrays: string[][];
}

/** Validates an update document and copies its operands into storable form. */
export function prepareUpdate(update: Update): PreparedUpdate {
  if (!isPlainObject(update) || Object.keys(update).length === 0) {
    throw new TypeError('an update must be a non-empty object of update operators');
  }
  const modifier: Record<string, Doc> = {};
  let onInsert: Doc | undefined;
  const numeric: string[][] = [];
  const arrays: string[][] = [];
  for (const op in update) {
    if (!OPERATORS.has(op)) {
      throw new TypeError(
        op.startsWith('$')
          ? `unsupported update operator ${op}`
          : `update document requires update operators, found field '${op}' (use replaceOne to replace)`,
      );
    }
    const operand = update[op];
    if (!isPlainObject(operand)) throw new TypeError(`${op} needs an object operand`);
    const normalized = normalizeValue(operand) as Doc;
    if (op === '$setOnInsert') {
      onInsert = normalized;
      continue;
    }
    if (op === '$inc' || op === '$mul') {
      for (const path in normalized) {
        if (typeof normalized[path] !== 'number')
          throw new TypeError(`${op} of '${path}' needs a numeric operand`);
        numeric.push(splitPath(path));
      }
    }
    if (op === '$push' || op === '$addToSet') for (const path in normalized) arrays.push(splitPath(path));
    modifier[op] = normalized;
  }
  return { modifier, onInsert, numeric, arrays };
}

function checkTargets(doc: Doc, prepared: PreparedUpdate): void {
  for (const segs of prepared.numeric) {
    const v = getPath(doc, segs);
    if (v !== undefined && typeof v !== 'number') {
      throw new TypeError(`cannot apply $inc/$mul to non-numeric field '${segs.join('.')}'`);
    }
  }
  for (const segs of prepared.arrays) {
    const v = getPath(doc, segs);
    if (v !== undefined && !Array.isArray(v))
      throw new TypeError(`field '${segs.join('.')}' must be an array`);
  }
}

/**
 * Applies a prepared update in place to a private copy of a document; `inserting` also applies
 * `$setOnInsert`. Returns whether anything changed. `_id` is immutable, as in MongoDB.
 */
export function applyUpdate(doc: Doc, prepared: PreparedUpdate, inserting: boolean): boolean {
  checkTargets(doc, prepared);
  const id = doc._id;
  let modifier = prepared.modifier;
  if (inserting && prepared.onInsert) {
    const set = modifier.$set ?? {};
    for (const path in prepared.onInsert) {
      if (path in set)
        throw new TypeError(`updating the path '${path}' would create a conflict ($set and $setOnInsert)`);
    }
    modifier = { ...modifier, $set: { ...set, ...prepared.onInsert } };
  }
  const setId = modifier.$set?._id;
  if (setId !== undefined) {
    // MongoDB accepts `_id` in $set/$setOnInsert when it creates the document or leaves it
    // unchanged; mingo refuses any write to `_id`, so it is settled here.
    if (id !== undefined && setId !== id) throw new TypeError("the field '_id' is immutable");
    if (id === undefined && !inserting) throw new TypeError("the field '_id' is immutable");
    doc._id = setId;
    const { _id: _ignored, ...rest } = modifier.$set as Doc;
    modifier = { ...modifier, $set: rest };
  }
  const fast = setTopLevelOnly(doc, modifier);
  if (fast !== undefined) return fast;
  let changed: string[];
  try {
    changed = mingoUpdate(doc, modifier as Modifier, undefined, undefined, { cloneMode: 'copy' });
  } catch (e) {
    // mingo reports invalid updates (conflicting paths, `_id` changes) with its own error class.
    throw new TypeError((e as Error).message);
  }
  if (doc._id !== (setId ?? id) && !(inserting && id === undefined)) {
    throw new TypeError("the field '_id' is immutable");
  }
  return changed.length > 0;
}

/**
 * The commonest updates, `$set`, `$push` and `$addToSet` of single values on top-level fields,
 * applied without mingo: mingo builds its operator context on every call, which dominated
 * write-heavy paths (run records, chat turns). Returns undefined when the modifier needs the
 * general updater (dotted paths, `$each` and other modifiers, one field under two operators).
 */
function setTopLevelOnly(doc: Doc, modifier: Record<string, unknown>): boolean | undefined {
  const seen = new Set<string>();
  for (const op in modifier) {
    if (op !== '$set' && op !== '$push' && op !== '$addToSet') return undefined;
    const fields = modifier[op] as Doc;
    for (const k in fields) {
      if (k.includes('.') || k.startsWith('$') || k === '_id' || seen.has(k)) return undefined;
      seen.add(k);
      const v = fields[k];
      if (op !== '$set' && isPlainObject(v) && Object.keys(v).some((f) => f.startsWith('$'))) return undefined;
    }
  }
  let changed = false;
  for (const op in modifier) {
    const fields = modifier[op] as Doc;
    for (const k in fields) {
      const v = fields[k];
      if (op === '$set') {
        if (k in doc && isDeepStrictEqual(doc[k], v)) continue;
        doc[k] = cloneValue(v);
      } else {
        // checkTargets has refused non-array targets already.
        const list = (doc[k] as unknown[] | undefined) ?? [];
        if (op === '$addToSet' && list.some((x) => isDeepStrictEqual(x, v))) continue;
        doc[k] = [...list, cloneValue(v)];
      }
      changed = true;
    }
  }
  return changed;
}

/** Validates a replacement document (no update operators, `_id` unchanged) and copies it. */
export function prepareReplacement(doc: unknown, id: string | undefined): Doc {
  if (!isPlainObject(doc)) throw new TypeError('a replacement must be a plain object');
  for (const k in doc)
    if (k.startsWith('$')) throw new TypeError(`a replacement cannot contain update operators (${k})`);
  const out = normalizeValue(doc) as Doc;
  if (out._id !== undefined && id !== undefined && out._id !== id)
    throw new TypeError("the field '_id' is immutable");
  delete out._id;
  return id === undefined ? out : { _id: id, ...out };
}
