/**
 * MongoDB find projections for the embedded engine: inclusion (`{a: 1, 'b.c': 1}`, `_id` kept
 * unless `_id: 0`) or exclusion (`{a: 0}`), dotted paths reaching into sub-documents and arrays of
 * sub-documents. Written out rather than delegated to mingo, whose projection costs ~30 µs a call.
 */
import { type Doc, cloneValue, isPlainObject } from './document.util';
import type { Projection } from './store.port';

type Tree = Map<string, Tree | true>;

function buildTree(paths: string[]): Tree {
  const root: Tree = new Map();
  for (const p of paths) {
    const segs = p.split('.');
    let node = root;
    for (let i = 0; i < segs.length; i++) {
      const last = i === segs.length - 1;
      const cur = node.get(segs[i]);
      if (last) {
        node.set(segs[i], true);
      } else if (cur === true) {
        break; // a parent is already projected whole
      } else {
        const next: Tree = cur ?? new Map();
        node.set(segs[i], next);
        node = next;
      }
    }
  }
  return root;
}

function include(value: Doc, tree: Tree): Doc {
  const out: Doc = {};
  for (const key of Object.keys(value)) {
    const t = tree.get(key);
    if (t === undefined) continue;
    const v = value[key];
    if (t === true) out[key] = cloneValue(v);
    else if (Array.isArray(v)) out[key] = v.filter(isPlainObject).map((el) => include(el, t));
    else if (isPlainObject(v)) out[key] = include(v, t);
  }
  return out;
}

function exclude(value: Doc, tree: Tree): void {
  for (const [key, t] of tree) {
    if (t === true) {
      delete value[key];
      continue;
    }
    const v = value[key];
    if (Array.isArray(v)) for (const el of v) if (isPlainObject(el)) exclude(el, t);
    if (isPlainObject(v)) exclude(v, t);
  }
}

/** Compiles a projection into a function producing a fresh, projected copy of a document. */
export function compileProjection(projection: Projection | undefined): (doc: Doc) => Doc {
  if (!projection || Object.keys(projection).length === 0) return (doc) => cloneValue(doc);
  const fields = Object.keys(projection).filter((k) => k !== '_id');
  const modes = new Set(fields.map((k) => (projection[k] ? 1 : 0)));
  if (modes.size > 1) throw new TypeError('a projection cannot mix inclusion and exclusion (except for _id)');
  const idFlag = projection._id;
  const inclusion = modes.has(1) || (fields.length === 0 && idFlag !== undefined && Boolean(idFlag));
  if (inclusion) {
    const paths = idFlag === 0 ? fields : ['_id', ...fields];
    const tree = buildTree(paths);
    return (doc) => include(doc, tree);
  }
  const tree = buildTree(idFlag === 0 ? [...fields, '_id'] : fields);
  return (doc) => {
    const out = cloneValue(doc);
    exclude(out, tree);
    return out;
  };
}
