import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
}

export interface FerretDbOptions {
  /** Folder of the SQLite databases and FerretDB's state. */
  dataDir: string;
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
  if (!state?.pid || !pidAlive(state.pid)) return 0;
  await stopPid(state.pid);
  state.pid = undefined;
  await writeState(state);
  return 1;
}

/** Starts FerretDB on SQLite files under `dataDir` (or finds the one already running there). */
export async function startFerretDb(options: FerretDbOptions): Promise<FerretDb> {
  const binary = await installFerretDb({ log: options.log });
  await mkdir(path.join(options.dataDir, 'sqlite'), { recursive: true });
  const state: FerretDbState = (await readState(options.dataDir)) ?? {
    port: await freePort(),
    dataDir: options.dataDir,
  };
  state.dataDir = options.dataDir;
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
    const logFd = openSync(path.join(options.dataDir, 'ferretdb.log'), 'a');
    const proc = spawn(
      binary,
      [
        '--handler=sqlite',
        `--sqlite-url=file:${path.join(options.dataDir, 'sqlite')}/`,
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
      if (stopOptions.remove) await rm(options.dataDir, { recursive: true, force: true });
      else await writeState(state);
    },
  };
}
