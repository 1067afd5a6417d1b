import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import {
  enginesCacheDir,
  freePort,
  pidAlive,
  portAnswers,
  requireTool,
  run,
  stopPid,
  waitUntil,
} from './engine-util';

/** The FerretDB release the project tests against (1.x: its embedded SQLite backend needs no other server). */
export const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';
export const FERRETDB_VERSION = 'v1.24.2';

/**
 * Builds FerretDB from the Go module proxy into the engines cache (once; about a minute on 2
 * cores). `go install …@version` gives a binary that panics at start, because the module ships an
 * empty `build/version/version.txt` that release builds generate; so the module source is copied
 * out of the read-only module cache, the file written, and `go build` run there.
 */
export async function installFerretDb(options: { log?: (line: string) => void } = {}): Promise<string> {
  const dir = path.join(enginesCacheDir(), `ferretdb-${FERRETDB_VERSION}`);
  const binary = path.join(dir, 'ferretdb');
  if (existsSync(binary)) return binary;
  requireTool('go', 'version', `building FerretDB ${FERRETDB_VERSION} needs Go (the Go module proxy serves its source)`);
  options.log?.(`ferretdb: building ${FERRETDB_MODULE}@${FERRETDB_VERSION} from the Go module proxy`);
  const cache = enginesCacheDir();
  await mkdir(cache, { recursive: true });
  const info = JSON.parse(
    await run('go', ['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], { cwd: cache }),
  ) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${FERRETDB_MODULE}@${FERRETDB_VERSION} failed: ${info.Error ?? 'no Dir'}`);
  const src = path.join(cache, `ferretdb-src-${process.pid}`);
  await rm(src, { recursive: true, force: true });
  await cp(info.Dir, src, { recursive: true });
  await chmod(path.join(src, 'build', 'version'), 0o755);
  await writeFile(path.join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
  const staging = `${binary}.tmp-${process.pid}`;
  await mkdir(dir, { recursive: true });
  try {
    await run('go', ['build', '-trimpath', '-o', staging, './cmd/ferretdb'], {
      cwd: src,
      env: { ...process.env, GOFLAGS: '-buildvcs=false', CGO_ENABLED: '0' },
    });
    await rename(staging, binary);
  } finally {
    await rm(src, { recursive: true, force: true });
  }
  options.log?.(`ferretdb: built ${binary}`);
  return binary;
}

export interface FerretDbState {
  port: number;
  dataDir: string;
  pid?: number;
  /** Where FerretDB keeps the documents. */
  backend?: FerretDbBackend;
  /** Port of the private PostgreSQL cluster (postgresql backend). */
  pgPort?: number;
}

/**
 * `postgresql`: a private cluster of Debian's PostgreSQL under the data folder. FerretDB 1.x
 * pushes filters down to it and keeps real indexes there, so lookups stay flat as collections
 * grow (measured: about 2 ms an upsert at any size). `sqlite`: no other server, but every filter
 * but `_id` scans the collection (7 ms a unique lookup at 600 documents, growing with them).
 */
export type FerretDbBackend = 'postgresql' | 'sqlite';

/** The bin folder of the newest installed PostgreSQL server (Debian: /usr/lib/postgresql/<major>/bin), if any. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((d) => /^\d+$/.test(d) && existsSync(path.join(root, d, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length ? path.join(root, majors[0], 'bin') : undefined;
}

/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` user Debian creates. */
function asPostgresUser(cmd: string, args: string[]): [string, string[]] {
  return userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

/**
 * The cluster's folder: inside the data folder, except as root, where the `postgres` user could
 * not reach a folder under root's home: then under the system temp folder, one per data folder.
 */
function pgClusterDir(dataDir: string): string {
  if (userInfo().uid !== 0) return path.join(dataDir, 'pg');
  const id = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  return path.join(tmpdir(), 'flowplane-engines-pg', id);
}

async function startPostgres(dataDir: string, port: number): Promise<void> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian: postgresql)');
  const cluster = pgClusterDir(dataDir);
  const owner = userInfo().uid === 0 ? await postgresIds() : undefined;
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    await rm(cluster, { recursive: true, force: true });
    await mkdir(cluster, { recursive: true, mode: 0o700 });
    if (owner) {
      await chmod(path.dirname(cluster), 0o755);
      await chown(cluster, owner.uid, owner.gid);
    }
    const [cmd, args] = asPostgresUser(path.join(bin, 'initdb'), ['-D', cluster, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-instructions']);
    await run(cmd, args, { timeoutMs: 120_000 });
  }
  // Test data only: no fsync, and the socket in the cluster folder instead of /var/run/postgresql.
  const options = `-p ${port} -k ${cluster} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const [cmd, args] = asPostgresUser(path.join(bin, 'pg_ctl'), ['-D', cluster, '-o', options, '-l', path.join(cluster, 'server.log'), '-w', 'start']);
  await run(cmd, args, { timeoutMs: 60_000 });
  const [createCmd, createArgs] = asPostgresUser(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'ferretdb']);
  await run(createCmd, createArgs).catch((e: Error) => {
    if (!/already exists/.test(e.message)) throw e;
  });
}

async function stopPostgres(dataDir: string): Promise<void> {
  const bin = postgresBinDir();
  const cluster = pgClusterDir(dataDir);
  if (!bin || !existsSync(path.join(cluster, 'postmaster.pid'))) return;
  const [cmd, args] = asPostgresUser(path.join(bin, 'pg_ctl'), ['-D', cluster, '-m', 'fast', '-w', 'stop']);
  await run(cmd, args, { timeoutMs: 60_000 }).catch(() => undefined);
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const line = (await readFile('/etc/passwd', 'utf8')).split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('PostgreSQL refuses to run as root and there is no postgres user to run it as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface FerretDbOptions {
  /** Folder of the documents (SQLite files or the PostgreSQL cluster) and FerretDB's state. */
  dataDir: string;
  /** Default: `postgresql` where Debian's PostgreSQL is installed, else `sqlite`. */
  backend?: FerretDbBackend;
  /** Processes outlive this one (`engines:up`); otherwise killed when it exits. */
  detached?: boolean;
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface FerretDb {
  /** `mongodb://127.0.0.1:<port>/`: for `MONGO_URL`. */
  readonly url: string;
  readonly state: FerretDbState;
  /** SIGKILLs the server (a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same data and port. */
  start(): Promise<void>;
  stop(options?: { remove?: boolean }): Promise<void>;
}

async function readState(dataDir: string): Promise<FerretDbState | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dataDir, 'ferretdb.json'), 'utf8')) as FerretDbState;
  } catch {
    return undefined;
  }
}

async function writeState(state: FerretDbState): Promise<void> {
  await writeFile(path.join(state.dataDir, 'ferretdb.json'), JSON.stringify(state, null, 2));
}

/** Reads the recorded server of `dataDir`, when one was started there. */
export function ferretDbState(dataDir: string): Promise<FerretDbState | undefined> {
  return readState(dataDir);
}

/** Stops the recorded server of a detached start (and only it); the data stays. */
export async function stopFerretDb(dataDir: string): Promise<number> {
  const state = await readState(dataDir);
  if (!state) return 0;
  let stopped = 0;
  if (state.pid && pidAlive(state.pid)) {
    await stopPid(state.pid);
    stopped = 1;
  }
  if (state.backend === 'postgresql') await stopPostgres(dataDir);
  state.pid = undefined;
  await writeState(state);
  return stopped;
}

/** Starts FerretDB on PostgreSQL or SQLite under `dataDir` (or finds the one already running there). */
export async function startFerretDb(options: FerretDbOptions): Promise<FerretDb> {
  const binary = await installFerretDb({ log: options.log });
  await mkdir(options.dataDir, { recursive: true });
  const previous = await readState(options.dataDir);
  const backend: FerretDbBackend = options.backend ?? previous?.backend ?? (postgresBinDir() ? 'postgresql' : 'sqlite');
  if (previous?.backend && previous.backend !== backend) {
    throw new Error(`FerretDB data in ${options.dataDir} is on ${previous.backend}; asked for ${backend} (remove the folder or use another)`);
  }
  const state: FerretDbState = previous ?? { port: await freePort(), dataDir: options.dataDir };
  state.dataDir = options.dataDir;
  state.backend = backend;
  if (backend === 'sqlite') await mkdir(path.join(options.dataDir, 'sqlite'), { recursive: true });
  let child: ChildProcess | undefined;
  let exited: string | undefined;
  const kill = (): void => {
    child?.kill('SIGKILL');
  };
  if (!options.detached) process.once('exit', kill);

  const start = async (): Promise<void> => {
    if (state.pid && pidAlive(state.pid) && (await portAnswers(state.port))) return;
    if (await portAnswers(state.port)) {
      state.port = await freePort();
    }
    if (backend === 'postgresql') {
      if (!state.pgPort || !(await portAnswers(state.pgPort))) {
        state.pgPort ??= await freePort();
        await startPostgres(options.dataDir, state.pgPort);
      }
    }
    const backendArgs =
      backend === 'postgresql'
        ? ['--handler=postgresql', `--postgresql-url=postgres://postgres@127.0.0.1:${state.pgPort}/ferretdb`]
        : ['--handler=sqlite', `--sqlite-url=file:${path.join(options.dataDir, 'sqlite')}/`];
    const logFd = openSync(path.join(options.dataDir, 'ferretdb.log'), 'a');
    const proc = spawn(
      binary,
      [
        ...backendArgs,
        `--state-dir=${options.dataDir}`,
        `--listen-addr=127.0.0.1:${state.port}`,
        '--telemetry=disable',
        '--log-level=warn',
        '--debug-addr=-',
      ],
      { detached: options.detached === true, stdio: ['ignore', logFd, logFd] },
    );
    closeSync(logFd);
    exited = undefined;
    proc.once('exit', (code, signal) => {
      exited = `exited (${code ?? signal}); see ${path.join(options.dataDir, 'ferretdb.log')}`;
    });
    if (options.detached) proc.unref();
    child = proc;
    state.pid = proc.pid;
    await writeState(state);
    await waitUntil(`FerretDB on 127.0.0.1:${state.port}`, () => portAnswers(state.port), {
      timeoutMs: options.startTimeoutMs ?? 30_000,
      intervalMs: 100,
      failed: () => exited,
    });
  };

  await start();
  return {
    url: `mongodb://127.0.0.1:${state.port}/`,
    state,
    async kill() {
      const pid = state.pid;
      if (!pid) return;
      const gone = child ? new Promise<void>((r) => child?.once('exit', () => r())) : undefined;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      if (gone) await gone;
      state.pid = undefined;
      await writeState(state);
    },
    start,
    async stop(stopOptions = {}) {
      process.removeListener('exit', kill);
      if (state.pid) await stopPid(state.pid);
      state.pid = undefined;
      if (backend === 'postgresql') await stopPostgres(options.dataDir);
      if (stopOptions.remove) {
        await rm(options.dataDir, { recursive: true, force: true });
        if (backend === 'postgresql') await rm(pgClusterDir(options.dataDir), { recursive: true, force: true });
      }
      else await writeState(state);
    },
  };
}

/** Stops the server of `dataDir` and removes its documents (the PostgreSQL cluster included). */
export async function removeFerretDb(dataDir: string): Promise<void> {
  await stopFerretDb(dataDir);
  await rm(pgClusterDir(dataDir), { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
}
