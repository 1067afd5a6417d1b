import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Where downloaded and built engines are kept between runs: `FLOWPLANE_ENGINES_CACHE`, else
 * `$XDG_CACHE_HOME/flowplane/engines`, else `~/.cache/flowplane/engines`. Outside the checkout, so
 * a clean clone (as CI makes) still finds the jars and binaries of the last run.
 */
export function enginesCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FLOWPLANE_ENGINES_CACHE) return path.resolve(env.FLOWPLANE_ENGINES_CACHE);
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(homedir(), '.cache');
  return path.join(base, 'flowplane', 'engines');
}

/** Finds the repository root from here, whether running from sources (Jest) or from dist/. */
export function repositoryRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(path.join(dir, 'tools', 'engines', 'kafka', 'pom.xml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(__dirname, '../../../../..');
    dir = parent;
  }
}

/** Thrown when a tool an engine needs (java, mvn, go) is missing: the message is one line saying which. */
export class EngineToolMissingError extends Error {
  override readonly name = 'EngineToolMissingError';
}

/** Checks that `cmd` runs (`cmd <versionArg>` exits 0); throws EngineToolMissingError naming `why` otherwise. */
export function requireTool(cmd: string, versionArg: string, why: string): void {
  const r = spawnSync(cmd, [versionArg], { stdio: 'ignore' });
  if (r.error || r.status !== 0) {
    throw new EngineToolMissingError(`${cmd} not found on PATH: ${why}`);
  }
}

/** Runs a command to completion; rejects with its last output lines when it fails. */
export function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 15 * 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-15).join('\n');
          reject(new Error(`${cmd} ${args.join(' ')} failed: ${error.message}\n${tail}`));
        } else resolve(stdout);
      },
    );
  });
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Distinct free ports (asked for together, so none is handed out twice). */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** True when something accepts TCP connections on 127.0.0.1:`port`. */
export function portAnswers(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Polls `check` until it resolves true, or rejects after `timeoutMs` with `what` and the reason the
 * process gave up (`failed()` returns a message once the process has exited).
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; failed?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    const failure = options.failed?.();
    if (failure) throw new Error(`${what}: ${failure}`);
    try {
      if (await check()) return;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`${what} did not answer within ${options.timeoutMs} ms${why}`);
    }
    await sleep(options.intervalMs ?? 200);
  }
}

/** True when a process with this pid exists (signal 0 probes without killing). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the pid is gone. */
export async function stopPid(pid: number, graceMs = 10_000): Promise<void> {
  if (!pidAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (pidAlive(pid) && Date.now() < deadline) await sleep(100);
  if (pidAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone between the check and the kill.
    }
    while (pidAlive(pid)) await sleep(50);
  }
}
