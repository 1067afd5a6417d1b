/**
 * On-disk layout of the embedded adapter, one directory per index under the store's dir:
 *
 *   <dir>/<index>/meta.json              {format, name, dim, distance, generation, nextLabel, count}
 *   <dir>/<index>/graph-<gen>.hnsw       hnswlib graph (writeIndex), tombstones included
 *   <dir>/<index>/points-<gen>.jsonl     one {id, label, payload, pending?} per live point
 *   <dir>/<index>/pending-<gen>.f32      float32 vectors of the points flagged pending (not in the
 *                                        graph yet), in their order in points-<gen>.jsonl
 *
 * A save writes the next generation's graph and points (each temp + fsync + rename), then
 * replaces meta.json the same way. meta.json is the commit point: a crash at any moment leaves
 * either the old or the new generation complete, never a graph paired with the wrong id map.
 */
import { chmod, open, readdir, readFile, rename, rm, mkdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { StoredEntry } from './hnsw-collection.engine';
import type { VectorDistance } from './vector-store.port';

/** Format 2 added pending points; format 1 directories (no pending points) still load. */
const FORMAT = 2;
const READABLE_FORMATS = [1, 2];
const META = 'meta.json';
/** Aliases of the whole store, `{alias: index}`; a file beside the index directories. */
const ALIASES = 'aliases.json';

export interface CollectionMeta {
  format: number;
  name: string;
  dim: number;
  distance: VectorDistance;
  generation: number;
  nextLabel: number;
  count: number;
  /** Points not in the graph yet (absent in format 1: none). */
  pending?: number;
}

/** A collection as found on disk, ready for `HnswCollection.restore`. */
export interface PersistedCollection {
  meta: CollectionMeta;
  graphFile: string;
  entries: StoredEntry[];
  pendingVectors: Float32Array[];
}

/** Index files carry document payloads: owner-only, like the document store's files. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

const graphName = (gen: number): string => `graph-${gen}.hnsw`;
const pointsName = (gen: number): string => `points-${gen}.jsonl`;
const pendingName = (gen: number): string => `pending-${gen}.f32`;

/** Writes `data` to `file` atomically: a sibling temp file, fsync, rename. */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', FILE_MODE);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
}

async function fsyncPath(file: string): Promise<void> {
  const fh = await open(file, 'r');
  try {
    await fh.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic there.
  } finally {
    await fh.close();
  }
}

/**
 * Saves generation `meta.generation` of a collection. `writeGraph` writes the graph to the path it
 * is given. Files of older generations are removed once the new meta.json is in place.
 */
export async function saveCollection(
  root: string,
  meta: CollectionMeta,
  entries: StoredEntry[],
  writeGraph: (file: string) => Promise<void>,
  pendingVectors: Float32Array[] = [],
): Promise<void> {
  const dir = path.join(root, meta.name);
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  const gen = meta.generation;

  const graphTmp = path.join(dir, `${graphName(gen)}.tmp`);
  await writeGraph(graphTmp);
  // hnswlib creates the file with the default mode.
  await chmod(graphTmp, FILE_MODE);
  await fsyncPath(graphTmp);
  await rename(graphTmp, path.join(dir, graphName(gen)));

  const lines = entries.map((e) =>
    JSON.stringify(e.pending ? { id: e.id, label: e.label, payload: e.payload, pending: true } : { id: e.id, label: e.label, payload: e.payload }),
  );
  await writeFileAtomic(path.join(dir, pointsName(gen)), lines.length ? `${lines.join('\n')}\n` : '');
  if (pendingVectors.length) {
    const bytes = Buffer.alloc(pendingVectors.length * meta.dim * 4);
    const all = new Float32Array(bytes.buffer, bytes.byteOffset, pendingVectors.length * meta.dim);
    pendingVectors.forEach((v, i) => all.set(v, i * meta.dim));
    await writeFileAtomic(path.join(dir, pendingName(gen)), bytes);
  }
  await writeFileAtomic(path.join(dir, META), JSON.stringify({ ...meta, format: FORMAT }));
  await fsyncPath(dir);
  await removeStaleFiles(dir, gen);
}

/** Deletes a collection's directory. */
export async function removeCollection(root: string, name: string): Promise<void> {
  await rm(path.join(root, name), { recursive: true, force: true });
}

/** Reads every committed collection under `root`, removing leftovers of interrupted saves. */
export async function loadCollections(root: string): Promise<PersistedCollection[]> {
  await mkdir(root, { recursive: true, mode: DIR_MODE });
  await restrictModes(root);
  const out: PersistedCollection[] = [];
  for (const dirent of await readdir(root, { withFileTypes: true })) {
    if (!dirent.isDirectory()) continue;
    const dir = path.join(root, dirent.name);
    await restrictModes(dir);
    let metaText: string;
    try {
      metaText = await readFile(path.join(dir, META), 'utf8');
    } catch (err) {
      // No meta.json: a first save that never committed (its files are cleared when the index is
      // saved again) or a directory that is not ours. Nothing to restore either way.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    const meta = parseMeta(metaText, dir);
    const entries = parsePoints(await readFile(path.join(dir, pointsName(meta.generation)), 'utf8'), dir);
    if (entries.length !== meta.count) {
      throw new Error(
        `${dir}: ${pointsName(meta.generation)} has ${entries.length} points, meta.json says ${meta.count}`,
      );
    }
    const pending = entries.filter((e) => e.pending).length;
    if (pending !== (meta.pending ?? 0)) {
      throw new Error(`${dir}: ${pointsName(meta.generation)} has ${pending} pending points, meta.json says ${meta.pending ?? 0}`);
    }
    const pendingVectors = pending ? await readVectors(path.join(dir, pendingName(meta.generation)), meta.dim, pending) : [];
    await removeStaleFiles(dir, meta.generation);
    out.push({ meta, graphFile: path.join(dir, graphName(meta.generation)), entries, pendingVectors });
  }
  return out;
}

async function readVectors(file: string, dim: number, count: number): Promise<Float32Array[]> {
  const bytes = await readFile(file);
  if (bytes.length !== count * dim * 4) throw new Error(`${file} holds ${bytes.length} bytes, expected ${count} vectors of ${dim} float32`);
  // A copy per vector: each outlives the file buffer on its own and is aligned.
  const out: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    const v = new Float32Array(dim);
    for (let j = 0; j < dim; j++) v[j] = bytes.readFloatLE((i * dim + j) * 4);
    out.push(v);
  }
  return out;
}

function parseMeta(text: string, dir: string): CollectionMeta {
  const meta = JSON.parse(text) as Partial<CollectionMeta>;
  if (
    !READABLE_FORMATS.includes(meta.format as number) ||
    typeof meta.name !== 'string' ||
    path.basename(dir) !== meta.name ||
    typeof meta.dim !== 'number' ||
    typeof meta.generation !== 'number' ||
    typeof meta.nextLabel !== 'number' ||
    typeof meta.count !== 'number' ||
    !['cosine', 'dot', 'euclid'].includes(meta.distance as string)
  ) {
    throw new Error(`${dir}/${META} is not a vector index description of format ${READABLE_FORMATS.join(' or ')}`);
  }
  return meta as CollectionMeta;
}

function parsePoints(text: string, dir: string): StoredEntry[] {
  const entries: StoredEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as StoredEntry;
    if ((typeof e.id !== 'number' && typeof e.id !== 'string') || typeof e.label !== 'number') {
      throw new Error(`${dir}: malformed point line ${line.slice(0, 80)}`);
    }
    entries.push(e.pending === true ? { id: e.id, label: e.label, payload: e.payload ?? {}, pending: true } : { id: e.id, label: e.label, payload: e.payload ?? {} });
  }
  return entries;
}

/** Tightens a directory written by an older version (or under a lax umask) and its files; best effort. */
async function restrictModes(dir: string): Promise<void> {
  const tighten = async (p: string, mode: number) => {
    try {
      if (((await stat(p)).mode & 0o777) !== mode) await chmod(p, mode);
    } catch {
      // Not ours to change, or gone meanwhile: loading goes on.
    }
  };
  await tighten(dir, DIR_MODE);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile()) await tighten(path.join(dir, entry.name), FILE_MODE);
  }
}

async function removeStaleFiles(dir: string, generation: number): Promise<void> {
  const keep = new Set([META, graphName(generation), pointsName(generation), pendingName(generation)]);
  for (const name of await readdir(dir)) {
    if (!keep.has(name)) await unlink(path.join(dir, name)).catch(() => undefined);
  }
}

/** Writes the alias table atomically (temp + fsync + rename). */
export async function saveAliases(root: string, aliases: Record<string, string>): Promise<void> {
  await mkdir(root, { recursive: true, mode: DIR_MODE });
  await writeFileAtomic(path.join(root, ALIASES), JSON.stringify(aliases));
  await fsyncPath(root);
}

/** The alias table, empty when none was ever saved. */
export async function loadAliases(root: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path.join(root, ALIASES), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  const parsed = JSON.parse(text) as unknown;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new Error(`${path.join(root, ALIASES)} is not an alias table`);
  }
  return parsed as Record<string, string>;
}
