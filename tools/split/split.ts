import { type ChildProcess, spawn } from 'node:child_process';
import { hostname } from 'node:os';
import path from 'node:path';
import { PLATFORM_NODE_FLAGS } from '@flowplane/platform/config';

/** Services in start order with their default ports; the gateway starts last. */
export const SPLIT_SERVICES: Array<[name: string, port: number]> = [
  ['profiles', 8083],
  ['deployments', 8082],
  ['flow-runtime', 8081],
  ['assistant', 8084],
  ['i18n', 8085],
  ['search', 8086],
  ['hub', 8087],
  ['gateway', 8080],
];

export interface SplitOptions {
  brokers: string[];
  /** Port of the gateway; the others take basePort+1.. in the order of the ports table. */
  basePort?: number;
  env?: Record<string, string | undefined>;
  /** Forward each service's output with a `[name]` prefix. */
  inheritOutput?: boolean;
  startTimeoutMs?: number;
  /**
   * Times a process is started before its start counts as failed (default 1). A process that exits
   * during start-up is started again, as Kubernetes' restart policy would: a replica joining its
   * consumer groups while the others rebalance can give up on the join and exit.
   */
  startAttempts?: number;
  /**
   * Replicas per service (default 1), e.g. `{'flow-runtime': 2}`. Replica n ≥ 2 is named `<service>#n`
   * in `urls`/`processes`, listens on the next free port after the table (basePort+8, +9, ...), starts
   * right after replica 1 with the same env, bus and brokers, and gets its own `DATA_DIR/replica-n`:
   * the embedded store and vector index lock their directory to one process, so replicas share
   * state only through `STORE=mongo` (one `MONGO_URL`). The gateway and the other services keep
   * calling replica 1 (`<SERVICE>_URL` is one URL: the gateway does not balance across replicas).
   */
  replicas?: Record<string, number>;
  /**
   * Every service on `STORE=mongo` against this server instead of its embedded store: each service
   * gets its own database, `<prefix>_<service>` (the prefix is the URL's database, else
   * `flowplane`), and its replicas share it, as pods of one Deployment would.
   */
  mongoUrl?: string;
}

/** The `MONGO_URL` of one service: the server of `url`, the database `<prefix>_<service>`. */
export function serviceMongoUrl(url: string, service: string): string {
  const u = new URL(url);
  const prefix = decodeURIComponent(u.pathname.replace(/^\/+|\/+$/g, '')) || 'flowplane';
  u.pathname = `/${prefix}_${service.replace(/-/g, '_')}`;
  return u.toString();
}

export interface SplitPlatform {
  gatewayUrl: string;
  /** Base URL per process: `<service>` for replica 1, `<service>#n` for the others. */
  urls: Record<string, string>;
  processes: Record<string, ChildProcess>;
  /** Every replica's URL per service, replica 1 first. */
  replicaUrls: Record<string, string[]>;
  /**
   * Starts process `key` (`<service>` or `<service>#n`) again, after it exited or was killed, with the
   * same port, env and DATA_DIR; resolves once it is healthy. `processes[key]` names the new process.
   */
  restart(key: string): Promise<ChildProcess>;
  stop(): Promise<void>;
}

// Runs from tools/split (tests, via SWC in Jest) or dist/tools/split (npm run start:split).
const root = path.resolve(__dirname, path.basename(path.resolve(__dirname, '..', '..')) === 'dist' ? '../../..' : '../..');

async function waitHealthy(url: string, proc: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`process exited with code ${proc.exitCode}`);
    try {
      const res = await fetch(url + '/healthz', { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not healthy within ${timeoutMs} ms`);
}

function stopProcess(p: ChildProcess, timeoutMs = 10000): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    p.kill('SIGTERM');
  });
}

/** Starts every service as its own process on BUS=kafka (built code in dist/), waits until each is healthy. */
export async function startSplit(o: SplitOptions): Promise<SplitPlatform> {
  const base = o.basePort ?? 8080;
  const ports = Object.fromEntries(SPLIT_SERVICES.map(([name, port]) => [name, port - 8080 + base]));
  const urls = Object.fromEntries(Object.entries(ports).map(([n, p]) => [n, `http://127.0.0.1:${p}`]));
  const upstreams = Object.fromEntries(SPLIT_SERVICES.filter(([n]) => n !== 'gateway').map(([n]) => [`${n.replace(/-/g, '_').toUpperCase()}_URL`, urls[n]]));
  // Processes in start order: each service, then its extra replicas.
  const plan: Array<{ key: string; service: string; port: number; env: Record<string, string | undefined> }> = [];
  const replicaUrls: Record<string, string[]> = {};
  let nextPort = base + SPLIT_SERVICES.length;
  const dataDir = o.env?.DATA_DIR ?? process.env.DATA_DIR ?? path.join(root, '.data');
  const host = o.env?.HOSTNAME ?? process.env.HOSTNAME ?? hostname();
  for (const [name] of SPLIT_SERVICES) {
    plan.push({ key: name, service: name, port: ports[name], env: {} });
    replicaUrls[name] = [urls[name]];
    const count = o.replicas?.[name] ?? 1;
    if (name === 'gateway' && count > 1) throw new TypeError('the gateway runs as one process in split mode');
    for (let n = 2; n <= count; n++) {
      const key = `${name}#${n}`;
      const port = nextPort++;
      urls[key] = `http://127.0.0.1:${port}`;
      replicaUrls[name].push(urls[key]);
      // Its own HOSTNAME, as a pod of its own would have: per-host consumer groups (the profile
      // cache's invalidator) must not be shared with replica 1, or each would miss half the events.
      plan.push({ key, service: name, port, env: { DATA_DIR: path.join(dataDir, `replica-${n}`), HOSTNAME: `${host}-r${n}` } });
    }
  }
  const processes: Record<string, ChildProcess> = {};
  const stop = async () => {
    const gw = processes.gateway;
    if (gw) await stopProcess(gw);
    await Promise.all(Object.entries(processes).filter(([n]) => n !== 'gateway').map(([, p]) => stopProcess(p)));
  };
  const launchOnce = async ({ key, service, port, env }: (typeof plan)[number]): Promise<ChildProcess> => {
    const entry = path.join(root, 'dist', 'apps', service, 'src', 'main.js');
    const proc = spawn(process.execPath, ['--enable-source-maps', ...PLATFORM_NODE_FLAGS, entry], {
      cwd: root,
      env: {
        ...process.env,
        ...o.env,
        ...env,
        ...upstreams,
        ...(o.mongoUrl ? { STORE: 'mongo', MONGO_URL: serviceMongoUrl(o.mongoUrl, service) } : {}),
        PORT: String(port),
        BUS: 'kafka',
        KAFKA_BROKERS: o.brokers.join(','),
      },
      stdio: o.inheritOutput ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'ignore', 'pipe'],
    });
    processes[key] = proc;
    let stderr = '';
    proc.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
      if (o.inheritOutput) process.stderr.write(prefix(key, d));
    });
    if (o.inheritOutput) proc.stdout?.on('data', (d: Buffer) => process.stdout.write(prefix(key, d)));
    try {
      await waitHealthy(urls[key], proc, o.startTimeoutMs ?? 30000);
    } catch (e) {
      throw new Error(`${key} failed to start: ${(e as Error).message}\n${stderr}`);
    }
    return proc;
  };
  const launch = async (entry: (typeof plan)[number]): Promise<ChildProcess> => {
    const attempts = Math.max(1, o.startAttempts ?? 1);
    for (let attempt = 1; ; attempt++) {
      try {
        return await launchOnce(entry);
      } catch (e) {
        if (attempt >= attempts) throw e;
        const failed = processes[entry.key];
        if (failed && failed.exitCode === null && failed.signalCode === null) await stopProcess(failed);
        process.stderr.write(`split: ${(e as Error).message.split('\n')[0]}; starting it again (attempt ${attempt + 1} of ${attempts})\n`);
      }
    }
  };
  try {
    for (const entry of plan) await launch(entry);
  } catch (e) {
    await stop();
    throw e;
  }
  const restart = async (key: string): Promise<ChildProcess> => {
    const entry = plan.find((p) => p.key === key);
    if (!entry) throw new TypeError(`no process ${key} in this split platform`);
    const old = processes[key];
    if (old && old.exitCode === null && old.signalCode === null) await stopProcess(old);
    return launch(entry);
  };
  return { gatewayUrl: urls.gateway, urls, processes, replicaUrls, restart, stop };
}

function prefix(name: string, d: Buffer): string {
  return d
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((l) => `[${name}] ${l}\n`)
    .join('');
}
