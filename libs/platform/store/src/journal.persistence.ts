/**
 * Durability for the embedded engine: an append-only journal of JSON lines plus a periodic
 * snapshot, all under the store's directory.
 *
 * Files:
 *   snapshot.jsonl        the whole store at the moment journal generation `gen` started
 *   journal-<gen>.jsonl   every write since then, one record per line
 *   LOCK                  pid of the process that has the store open
 *
 * Every line is `<crc32 hex> <json>\n`. A crash can only tear the end of the last journal (records
 * are appended, never rewritten), so on open a final line whose checksum or newline is missing is
 * cut off and everything before it is intact; a bad line followed by good ones is corruption and
 * refuses to open rather than silently dropping acknowledged writes. A multi-document write
 * (transaction, updateMany) is ONE record, so it is replayed entirely or not at all.
 *
 * Group commit: records appended during one turn of the event loop are written with a single
 * write(2) before the writes resolve. `fsync` then decides when they reach the disk:
 *   'interval' (default) fdatasync every `fsyncIntervalMs` (100 ms), like MongoDB's journal commit
 *              interval: a process crash loses nothing acknowledged, a power cut at most ~100 ms;
 *   'always'   writes resolve only after fdatasync (concurrent writes share one fdatasync);
 *   'never'    leave it to the OS (tests, benchmarks of the in-memory cost).
 *
 * Compaction switches new writes to the next journal generation, writes the captured state to
 * snapshot.tmp, fsyncs it, renames it over snapshot.jsonl and deletes the old journal. A crash at
 * any point leaves either the old snapshot plus both journals or the new snapshot plus the new
 * journal, both of which load to the same state.
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fdatasync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { type Doc, decodeEjson, encodeJson } from './document.util';
import type { IndexDefinition } from './hash-index.util';
import { StoreUnavailableError } from './store.port';

export type FsyncPolicy = 'always' | 'interval' | 'never';

/** One change recorded in the journal. */
export type JournalOp =
  | { o: 'p'; c: string; d: Doc }
  | { o: 'd'; c: string; id: string }
  | { o: 'x'; c: string; s: IndexDefinition };

export interface JournalOptions {
  dir: string;
  fsync: FsyncPolicy;
  fsyncIntervalMs: number;
  /** Compact once the journal is larger than this and larger than the last snapshot. */
  compactMinBytes: number;
  warn: (message: string) => void;
}

/** The state a journal directory loads to. */
export interface LoadedCollection {
  docs: Map<string, Doc>;
  indexes: IndexDefinition[];
}

/** What compaction writes: one entry per collection, captured synchronously. */
export interface SnapshotCollection {
  name: string;
  indexes: IndexDefinition[];
  docs: Doc[];
}

const SNAPSHOT = 'snapshot.jsonl';
const SNAPSHOT_TMP = 'snapshot.tmp';
const LOCK = 'LOCK';
const JOURNAL_RE = /^journal-(\d+)\.jsonl$/;
const CHUNK_BYTES = 1 << 20;
/** Store files hold every document, secrets included: owner-only, whatever the umask. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

// Directories opened by this process: a second open of the same directory would interleave two
// writers in one journal, so it is refused like an open from another process.
const openDirs = new Set<string>();

function journalName(gen: number): string {
  return `journal-${gen}.jsonl`;
}

function frame(json: string): string {
  return crc32(json).toString(16).padStart(8, '0') + ' ' + json + '\n';
}

/** `frame` straight into a Buffer: one UTF-8 encoding of the record instead of two. */
function frameBuffer(json: string): Buffer {
  const len = Buffer.byteLength(json, 'utf8');
  const buf = Buffer.allocUnsafe(len + 10);
  buf.write(json, 9, 'utf8');
  buf[len + 9] = 0x0a;
  buf.write(
    crc32(buf.subarray(9, 9 + len))
      .toString(16)
      .padStart(8, '0'),
    0,
    'latin1',
  );
  buf[8] = 0x20;
  return buf;
}

function encodeOp(op: JournalOp): string {
  switch (op.o) {
    case 'p':
      return '{"o":"p","c":' + JSON.stringify(op.c) + ',"d":' + encodeJson(op.d) + '}';
    case 'd':
      return JSON.stringify(op);
    case 'x':
      return JSON.stringify(op);
  }
}

/** The journal line (JSON, unframed) for one write: a single op or an atomic group. */
function encodeRecord(ops: readonly JournalOp[]): string {
  if (ops.length === 1) return encodeOp(ops[0]);
  return '{"o":"t","ops":[' + ops.map(encodeOp).join(',') + ']}';
}

interface ParsedLines {
  records: unknown[];
  /** Byte offset after the last good line. */
  goodBytes: number;
  /** True when bytes after goodBytes are not a valid line (torn tail or corruption). */
  bad: boolean;
  /** True when a valid line follows the first bad one (corruption, not a torn tail). */
  validAfterBad: boolean;
}

function parseLine(buf: Buffer, start: number, end: number): unknown {
  if (end - start < 10 || buf[start + 8] !== 0x20) return undefined;
  const want = parseInt(buf.toString('latin1', start, start + 8), 16);
  if (Number.isNaN(want) || crc32(buf.subarray(start + 9, end)) !== want) return undefined;
  try {
    return JSON.parse(buf.toString('utf8', start + 9, end)) as unknown;
  } catch {
    return undefined;
  }
}

function parseLines(buf: Buffer): ParsedLines {
  const records: unknown[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    const rec = nl < 0 ? undefined : parseLine(buf, pos, nl);
    if (rec === undefined) {
      // Is anything valid after the bad line? Then this is not a torn tail.
      let validAfterBad = false;
      let p = nl < 0 ? buf.length : nl + 1;
      while (p < buf.length && !validAfterBad) {
        const n = buf.indexOf(0x0a, p);
        if (n < 0) break;
        if (parseLine(buf, p, n) !== undefined) validAfterBad = true;
        p = n + 1;
      }
      return { records, goodBytes: pos, bad: true, validAfterBad };
    }
    records.push(rec);
    pos = nl + 1;
  }
  return { records, goodBytes: pos, bad: false, validAfterBad: false };
}

/** Why the line at `start` is not a valid record (for the corruption report). */
function badLineReason(buf: Buffer, start: number): string {
  const nl = buf.indexOf(0x0a, start);
  if (nl < 0) return 'incomplete record: no newline before the end of the file';
  if (nl - start < 10 || buf[start + 8] !== 0x20) return "malformed frame: expected '<crc32 hex> <json>'";
  const want = parseInt(buf.toString('latin1', start, start + 8), 16);
  if (Number.isNaN(want)) return 'malformed frame: the checksum is not hexadecimal';
  const got = crc32(buf.subarray(start + 9, nl));
  if (got !== want) {
    const hex = (n: number) => n.toString(16).padStart(8, '0');
    return `checksum mismatch: stored ${hex(want)}, computed ${hex(got)}`;
  }
  return 'invalid JSON';
}

/** Lines (newline-terminated, plus a trailing fragment) and how many of them are valid records. */
function countLines(buf: Buffer, from: number): { lines: number; valid: number } {
  let lines = 0;
  let valid = 0;
  let p = from;
  while (p < buf.length) {
    const nl = buf.indexOf(0x0a, p);
    lines++;
    if (nl < 0) break;
    if (parseLine(buf, p, nl) !== undefined) valid++;
    p = nl + 1;
  }
  return { lines, valid };
}

function corruptMessage(file: string, dir: string, parsed: ParsedLines, buf: Buffer): string {
  return (
    `journal ${file} is corrupt at byte ${parsed.goodBytes} (record ${parsed.records.length + 1}: ` +
    `${badLineReason(buf, parsed.goodBytes)}); refusing to open. ` +
    `Run "flowctl store verify ${dir}" to see the damage and ` +
    `"flowctl store repair ${dir} --truncate-at-first-bad" to cut the journal at its first bad record (a backup copy is kept)`
  );
}

/**
 * Gives a store directory and the files in it owner-only permissions, so a directory written by an
 * older version (or under a lax umask) is tightened on open. Best effort: a file we do not own
 * keeps its mode rather than stopping the store.
 */
export function restrictModes(dir: string): void {
  const tighten = (p: string, mode: number) => {
    try {
      if ((statSync(p).mode & 0o777) !== mode) chmodSync(p, mode);
    } catch {
      // Not ours to change (or gone meanwhile): the store still works.
    }
  };
  tighten(dir, PRIVATE_DIR_MODE);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) tighten(path.join(dir, entry.name), PRIVATE_FILE_MODE);
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems do not support fsync on directories; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function acquireLock(dir: string): void {
  const file = path.join(dir, LOCK);
  if (openDirs.has(dir))
    throw new StoreUnavailableError(`store directory ${dir} is already open in this process`);
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid)) {
      throw new StoreUnavailableError(`store directory ${dir} is locked by process ${pid}`);
    }
  }
  const fd = openSync(file, 'w', PRIVATE_FILE_MODE);
  writeSync(fd, String(process.pid));
  closeSync(fd);
  openDirs.add(dir);
}

function releaseLock(dir: string): void {
  openDirs.delete(dir);
  try {
    unlinkSync(path.join(dir, LOCK));
  } catch {
    // Already gone: nothing to release.
  }
}

function applyRecord(state: Map<string, LoadedCollection>, rec: unknown): void {
  const r = rec as { o: string; c: string; d?: Doc; id?: string; s?: IndexDefinition; ops?: unknown[] };
  if (r.o === 't') {
    for (const op of r.ops ?? []) applyRecord(state, op);
    return;
  }
  let col = state.get(r.c);
  if (!col) {
    col = { docs: new Map(), indexes: [] };
    state.set(r.c, col);
  }
  switch (r.o) {
    case 'p': {
      const doc = decodeEjson<Doc>(r.d);
      col.docs.set(doc._id as string, doc);
      break;
    }
    case 'd':
      col.docs.delete(r.id as string);
      break;
    case 'x': {
      const def = r.s as IndexDefinition;
      const at = col.indexes.findIndex((i) => i.name === def.name);
      if (at >= 0) col.indexes[at] = def;
      else col.indexes.push(def);
      break;
    }
    case 'c':
      col.indexes = (r as unknown as { x: IndexDefinition[] }).x;
      break;
    default:
      throw new StoreUnavailableError(`unknown journal record type ${JSON.stringify(r.o)}`);
  }
}

export class Journal {
  private fd: number;
  private gen: number;
  private bytes: number;
  private snapshotBytes: number;
  private pending: Buffer[] = [];
  private waiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private flushScheduled = false;
  private syncing: Promise<void> | undefined;
  private syncWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private compacting: Promise<void> | undefined;
  private closed = false;
  /** Set once a write failed: memory is then ahead of disk and the store must stop accepting writes. */
  failure: Error | undefined;

  private constructor(
    private readonly opts: JournalOptions,
    fd: number,
    gen: number,
    bytes: number,
    snapshotBytes: number,
  ) {
    this.fd = fd;
    this.gen = gen;
    this.bytes = bytes;
    this.snapshotBytes = snapshotBytes;
    if (opts.fsync === 'interval') {
      this.timer = setInterval(() => this.backgroundSync(), opts.fsyncIntervalMs);
      this.timer.unref();
    }
  }

  /** Opens (creating if needed) the store directory and loads its state. */
  static async open(
    opts: JournalOptions,
  ): Promise<{ journal: Journal; state: Map<string, LoadedCollection> }> {
    const dir = path.resolve(opts.dir);
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    restrictModes(dir);
    acquireLock(dir);
    try {
      return Journal.load({ ...opts, dir });
    } catch (e) {
      releaseLock(dir);
      throw e;
    }
  }

  private static load(opts: JournalOptions): { journal: Journal; state: Map<string, LoadedCollection> } {
    const dir = opts.dir;
    if (existsSync(path.join(dir, SNAPSHOT_TMP))) unlinkSync(path.join(dir, SNAPSHOT_TMP));
    const state = new Map<string, LoadedCollection>();
    let gen = 1;
    let snapshotBytes = 0;
    const snapshotFile = path.join(dir, SNAPSHOT);
    if (existsSync(snapshotFile)) {
      const buf = readFileSync(snapshotFile);
      snapshotBytes = buf.length;
      const parsed = parseLines(buf);
      const header = parsed.records[0] as { v?: number; gen?: number } | undefined;
      const footer = parsed.records[parsed.records.length - 1] as { o?: string; n?: number } | undefined;
      const problem = snapshotProblem(buf, parsed);
      if (problem || !header || typeof header.gen !== 'number' || footer?.o !== 'end') {
        throw new StoreUnavailableError(
          `snapshot ${snapshotFile} is corrupt (${problem}); refusing to open. ` +
            `Run "flowctl store verify ${dir}" to see the damage; a snapshot cannot be truncated, restore it from a backup`,
        );
      }
      gen = header.gen;
      for (let i = 1; i < parsed.records.length - 1; i++) applyRecord(state, parsed.records[i]);
    }
    const journals = readdirSync(dir)
      .map((f) => JOURNAL_RE.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    // Journals older than the snapshot were folded into it; a crash before their deletion leaves them.
    for (const g of journals) if (g < gen) unlinkSync(path.join(dir, journalName(g)));
    const live = journals.filter((g) => g >= gen);
    let bytes = 0;
    for (let i = 0; i < live.length; i++) {
      const file = path.join(dir, journalName(live[i]));
      const buf = readFileSync(file);
      const parsed = parseLines(buf);
      const last = i === live.length - 1;
      if (parsed.bad && (parsed.validAfterBad || !last)) {
        throw new StoreUnavailableError(corruptMessage(file, dir, parsed, buf));
      }
      for (const rec of parsed.records) applyRecord(state, rec);
      if (parsed.bad) {
        opts.warn(
          `store journal ${file}: ignoring ${buf.length - parsed.goodBytes} bytes of an incomplete last record (crash during write)`,
        );
        const fd = openSync(file, 'r+');
        ftruncateSync(fd, parsed.goodBytes);
        fsyncSync(fd);
        closeSync(fd);
      }
      if (last) {
        gen = live[i];
        bytes = parsed.goodBytes;
      }
    }
    const fd = openSync(path.join(dir, journalName(gen)), 'a', PRIVATE_FILE_MODE);
    if (live.length === 0) fsyncDir(dir);
    return { journal: new Journal(opts, fd, gen, bytes, snapshotBytes), state };
  }

  /** Appends one record (atomic on replay); resolves once written per the fsync policy. */
  append(ops: readonly JournalOp[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new StoreUnavailableError('store is closed'));
    this.pending.push(frameBuffer(encodeRecord(ops)));
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // After the poll phase rather than after this task: every request read in this turn of the
        // event loop shares one write (group commit), instead of one write per request.
        setImmediate(() => this.flush());
      }
    });
  }

  /** True when the journal has grown enough that a compaction pays off. */
  needsCompaction(): boolean {
    return !this.compacting && this.bytes > Math.max(this.opts.compactMinBytes, this.snapshotBytes);
  }

  private writePending(): void {
    if (this.pending.length === 0) return;
    const buf = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    this.pending = [];
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    this.bytes += buf.length;
    this.dirty = true;
  }

  private fail(e: unknown): void {
    this.failure = new StoreUnavailableError(`store journal write failed: ${(e as Error).message}`, {
      cause: e,
    });
    this.opts.warn(this.failure.message);
    for (const w of [...this.waiters, ...this.syncWaiters]) w.reject(this.failure);
    this.waiters = [];
    this.syncWaiters = [];
  }

  private flush(): void {
    this.flushScheduled = false;
    const waiters = this.waiters;
    this.waiters = [];
    try {
      this.writePending();
    } catch (e) {
      this.waiters = waiters;
      this.fail(e);
      return;
    }
    if (this.opts.fsync === 'always') {
      this.syncWaiters.push(...waiters);
      if (!this.syncing) this.syncing = this.syncLoop();
    } else {
      for (const w of waiters) w.resolve();
    }
  }

  // Group commit for 'always': every waiter that arrived while an fdatasync ran shares the next one.
  private async syncLoop(): Promise<void> {
    while (this.syncWaiters.length > 0 && !this.failure) {
      const batch = this.syncWaiters;
      this.syncWaiters = [];
      this.dirty = false;
      try {
        await new Promise<void>((resolve, reject) =>
          fdatasync(this.fd, (err) => (err ? reject(err) : resolve())),
        );
        for (const w of batch) w.resolve();
      } catch (e) {
        this.syncWaiters.unshift(...batch);
        this.fail(e);
      }
    }
    this.syncing = undefined;
  }

  private backgroundSync(): void {
    if (!this.dirty || this.syncing || this.failure || this.closed) return;
    this.dirty = false;
    this.syncing = new Promise<void>((resolve) =>
      fdatasync(this.fd, (err) => {
        if (err) this.fail(err);
        resolve();
      }),
    ).finally(() => {
      this.syncing = undefined;
      if (this.syncWaiters.length > 0) this.syncing = this.syncLoop();
    });
  }

  private async idle(): Promise<void> {
    while (this.syncing) await this.syncing;
  }

  /**
   * Compacts: switches writes to a new journal, writes `capture()` (called synchronously at the
   * switch, so it sees exactly the state the old journals describe) as the new snapshot, then
   * deletes the old journal. Runs at most once at a time; writes continue meanwhile.
   */
  compact(capture: () => SnapshotCollection[]): Promise<void> {
    if (this.compacting) return this.compacting;
    this.compacting = this.doCompact(capture).finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }

  private async doCompact(capture: () => SnapshotCollection[]): Promise<void> {
    await this.idle();
    if (this.failure) throw this.failure;
    if (this.closed) return;
    const dir = this.opts.dir;
    // Synchronous from here to the capture: no write can slip between the switch and the capture.
    const waiters = this.waiters;
    this.waiters = [];
    this.flushScheduled = false;
    try {
      this.writePending();
      fdatasyncSync(this.fd);
    } catch (e) {
      this.waiters = waiters;
      this.fail(e);
      throw this.failure;
    }
    for (const w of [...waiters, ...this.syncWaiters]) w.resolve();
    this.syncWaiters = [];
    const oldGen = this.gen;
    closeSync(this.fd);
    this.gen = oldGen + 1;
    this.fd = openSync(path.join(dir, journalName(this.gen)), 'a', PRIVATE_FILE_MODE);
    this.bytes = 0;
    this.dirty = false;
    fsyncDir(dir);
    const collections = capture();

    const tmp = path.join(dir, SNAPSHOT_TMP);
    const fh = await open(tmp, 'w', PRIVATE_FILE_MODE);
    let written = 0;
    try {
      let chunk = frame(JSON.stringify({ v: 1, gen: this.gen }));
      let count = 0;
      const put = async (line: string) => {
        chunk += line;
        if (chunk.length >= CHUNK_BYTES) {
          const buf = Buffer.from(chunk, 'utf8');
          chunk = '';
          await fh.write(buf);
          written += buf.length;
        }
      };
      for (const col of collections) {
        await put(frame(JSON.stringify({ o: 'c', c: col.name, x: col.indexes })));
        for (const d of col.docs) {
          await put(frame(encodeOp({ o: 'p', c: col.name, d })));
          count++;
        }
      }
      chunk += frame(JSON.stringify({ o: 'end', n: count }));
      const buf = Buffer.from(chunk, 'utf8');
      await fh.write(buf);
      written += buf.length;
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path.join(dir, SNAPSHOT));
    fsyncDir(dir);
    this.snapshotBytes = written;
    await unlink(path.join(dir, journalName(oldGen))).catch(() => undefined);
  }

  /** Writes and fsyncs everything pending, then releases the file and the directory lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.compacting) await this.compacting.catch(() => undefined);
    await this.idle();
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    try {
      if (!this.failure) {
        const waiters = this.waiters;
        this.waiters = [];
        this.writePending();
        fdatasyncSync(this.fd);
        for (const w of [...waiters, ...this.syncWaiters]) w.resolve();
        this.syncWaiters = [];
      }
    } catch (e) {
      this.fail(e);
    } finally {
      closeSync(this.fd);
      releaseLock(this.opts.dir);
    }
    if (this.failure) throw this.failure;
  }

  /** Size in bytes of the current journal generation (for tests and metrics). */
  get journalBytes(): number {
    return this.bytes;
  }
}

/** What is wrong with a snapshot file, or undefined when it is whole. */
function snapshotProblem(buf: Buffer, parsed: ParsedLines): string | undefined {
  if (parsed.bad) return `record ${parsed.records.length + 1} at byte ${parsed.goodBytes}: ${badLineReason(buf, parsed.goodBytes)}`;
  const header = parsed.records[0] as { v?: number; gen?: number } | undefined;
  if (!header || header.v !== 1 || typeof header.gen !== 'number') return 'missing or unknown header';
  const footer = parsed.records[parsed.records.length - 1] as { o?: string } | undefined;
  if (footer?.o !== 'end') return 'no end record: the snapshot was cut short';
  return undefined;
}

/** The first record that does not read back, in one file of a store. */
export interface BadRecord {
  /** 1-based position of the record in its file. */
  record: number;
  /** Byte offset where the bad record starts (everything before it is intact). */
  offset: number;
  reason: string;
  /**
   * Only the last record of the newest journal is damaged, as a crash during a write leaves it:
   * the store cuts it off by itself on the next start.
   */
  tornTail: boolean;
  /** Lines from the bad one to the end of the file, and how many of those are valid records. */
  linesAfter: number;
  validAfter: number;
  bytesAfter: number;
}

/** One file of a store directory as `verifyStoreDir` found it. */
export interface StoreFileReport {
  file: string;
  kind: 'snapshot' | 'journal' | 'stale-journal';
  bytes: number;
  /** Valid records before the first bad one (all of them when the file is clean). */
  records: number;
  firstBad?: BadRecord;
}

/** A store directory as `verifyStoreDir` found it. */
export interface StoreReport {
  dir: string;
  /** True when every file reads back completely. */
  clean: boolean;
  /** True when the store would open (clean, or only a torn tail it repairs itself). */
  opens: boolean;
  files: StoreFileReport[];
  /** Pid of a live process holding the store open, if any. */
  lockedBy?: number;
}

function liveLockHolder(dir: string): number | undefined {
  const file = path.join(dir, LOCK);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid) ? pid : undefined;
}

function liveJournalGens(dir: string, snapshotGen: number): { live: number[]; stale: number[] } {
  const gens = readdirSync(dir)
    .map((f) => JOURNAL_RE.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  return { live: gens.filter((g) => g >= snapshotGen), stale: gens.filter((g) => g < snapshotGen) };
}

function badRecord(buf: Buffer, parsed: ParsedLines, tornTail: boolean): BadRecord {
  const after = countLines(buf, parsed.goodBytes);
  return {
    record: parsed.records.length + 1,
    offset: parsed.goodBytes,
    reason: badLineReason(buf, parsed.goodBytes),
    tornTail,
    linesAfter: after.lines,
    validAfter: after.valid,
    bytesAfter: buf.length - parsed.goodBytes,
  };
}

/** True when `dir` holds the files of an embedded store. */
export function isStoreDir(dir: string): boolean {
  try {
    return readdirSync(dir).some((f) => f === SNAPSHOT || JOURNAL_RE.test(f));
  } catch {
    return false;
  }
}

/**
 * The store directories under `root`: `root` itself when it is one (`DATA_DIR/<service>`),
 * otherwise each sub-directory that is (`DATA_DIR`), in name order.
 */
export function findStoreDirs(root: string): string[] {
  const dir = path.resolve(root);
  if (isStoreDir(dir)) return [dir];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && isStoreDir(path.join(dir, e.name)))
    .map((e) => path.join(dir, e.name))
    .sort();
}

/** Reads every file of a store directory without opening the store (read-only, no lock taken). */
export function verifyStoreDir(storeDir: string): StoreReport {
  const dir = path.resolve(storeDir);
  const files: StoreFileReport[] = [];
  let snapshotGen = 1;
  const snapshotFile = path.join(dir, SNAPSHOT);
  if (existsSync(snapshotFile)) {
    const buf = readFileSync(snapshotFile);
    const parsed = parseLines(buf);
    const report: StoreFileReport = { file: snapshotFile, kind: 'snapshot', bytes: buf.length, records: parsed.records.length };
    const problem = snapshotProblem(buf, parsed);
    if (parsed.bad) report.firstBad = badRecord(buf, parsed, false);
    else if (problem) {
      report.firstBad = { record: parsed.records.length, offset: buf.length, reason: problem, tornTail: false, linesAfter: 0, validAfter: 0, bytesAfter: 0 };
    }
    const header = parsed.records[0] as { gen?: number } | undefined;
    if (typeof header?.gen === 'number') snapshotGen = header.gen;
    files.push(report);
  }
  const { live, stale } = liveJournalGens(dir, snapshotGen);
  for (const g of stale) {
    const file = path.join(dir, journalName(g));
    files.push({ file, kind: 'stale-journal', bytes: statSync(file).size, records: 0 });
  }
  live.forEach((g, i) => {
    const file = path.join(dir, journalName(g));
    const buf = readFileSync(file);
    const parsed = parseLines(buf);
    const report: StoreFileReport = { file, kind: 'journal', bytes: buf.length, records: parsed.records.length };
    if (parsed.bad) report.firstBad = badRecord(buf, parsed, !parsed.validAfterBad && i === live.length - 1);
    files.push(report);
  });
  const bad = files.filter((f) => f.firstBad);
  return {
    dir,
    clean: bad.length === 0,
    opens: bad.every((f) => f.firstBad?.tornTail),
    files,
    lockedBy: liveLockHolder(dir),
  };
}

/** What `repairStoreDir` changed. */
export interface RepairReport {
  dir: string;
  /** False when the store was clean and nothing was touched. */
  repaired: boolean;
  /** The journal cut at its first bad record, and where. */
  truncated?: { file: string; offset: number; backup: string };
  /** Whole journals after the cut, moved aside (renamed to their backup name). */
  removedJournals: Array<{ file: string; backup: string }>;
  /** Lines dropped (the bad record and everything after it), how many of them were valid, and bytes. */
  droppedRecords: number;
  droppedValidRecords: number;
  droppedBytes: number;
}

/** Thrown when a store cannot be repaired by truncation (locked, or its snapshot is damaged). */
export class StoreRepairError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreRepairError';
  }
}

/**
 * Cuts the journals of a store at their first bad record: the damaged journal is copied to
 * `<name>.bak-<time>` and truncated at the bad record's offset; newer journals (written after it)
 * are renamed to their backup name. The store then opens with every record before the damage.
 */
export function repairStoreDir(storeDir: string, now: Date = new Date()): RepairReport {
  const report = verifyStoreDir(storeDir);
  const { dir } = report;
  const result: RepairReport = { dir, repaired: false, removedJournals: [], droppedRecords: 0, droppedValidRecords: 0, droppedBytes: 0 };
  if (report.clean) return result;
  if (report.lockedBy !== undefined) {
    throw new StoreRepairError(`${dir} is open in process ${report.lockedBy}: stop it before repairing the store`);
  }
  const snapshot = report.files.find((f) => f.kind === 'snapshot');
  if (snapshot?.firstBad) {
    throw new StoreRepairError(
      `${snapshot.file} is corrupt (${snapshot.firstBad.reason}): a snapshot cannot be truncated; restore it from a backup`,
    );
  }
  const journals = report.files.filter((f) => f.kind === 'journal');
  const at = journals.findIndex((f) => f.firstBad);
  const damaged = journals[at];
  const bad = damaged.firstBad as BadRecord;
  const suffix = `.bak-${now.toISOString().replace(/[:.]/g, '-')}`;
  const backup = damaged.file + suffix;
  copyFileSync(damaged.file, backup);
  chmodSync(backup, PRIVATE_FILE_MODE);
  const fd = openSync(damaged.file, 'r+');
  try {
    ftruncateSync(fd, bad.offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  result.truncated = { file: damaged.file, offset: bad.offset, backup };
  result.droppedRecords = bad.linesAfter;
  result.droppedValidRecords = bad.validAfter;
  result.droppedBytes = bad.bytesAfter;
  for (const later of journals.slice(at + 1)) {
    const laterBackup = later.file + suffix;
    const after = countLines(readFileSync(later.file), 0);
    renameSync(later.file, laterBackup);
    result.removedJournals.push({ file: later.file, backup: laterBackup });
    result.droppedRecords += after.lines;
    result.droppedValidRecords += after.valid;
    result.droppedBytes += later.bytes;
  }
  fsyncDir(dir);
  result.repaired = true;
  return result;
}

/** Creates `dir` (and missing parents) owner-only, and tightens it when it already exists. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    if ((statSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE);
  } catch {
    // Not ours to change: the store directories inside are still owner-only.
  }
}
