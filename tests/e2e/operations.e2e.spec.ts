import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { TEST_SECRET, tempDir } from '../support/http';

/**
 * What an operator sees of the built processes (`npm start`, `npm run start:split`, one service per
 * container): the access log, LOG_PRETTY, a bad BUS and a busy port.
 */

const root = path.resolve(__dirname, '../..');
const entry = (rel: string) => path.join(root, 'dist', rel);
const PROFILES = entry('apps/profiles/src/main.js');
const GATEWAY = entry('apps/gateway/src/main.js');
const STANDALONE = entry('apps/standalone/src/main.js');
const SPLIT = entry('tools/split/main.js');

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(file: string, env: Record<string, string>): Proc {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, [file], {
    cwd: root,
    // Only what the test names: no inherited LOG_LEVEL, BUS or PORT from the runner's environment.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', STORE: 'memory', AUTH_JWT_SECRET: TEST_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Resolves the exit code, or kills the process and fails after `ms`. */
async function exitOf(p: Proc, ms = 20_000): Promise<number | null> {
  const timer = setTimeout(() => p.child.kill('SIGKILL'), ms);
  const code = await p.exited;
  clearTimeout(timer);
  return code;
}

async function waitFor(p: Proc, re: RegExp, ms = 20_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const m = p.stdout().match(re);
    if (m) return m;
    if (p.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${re} in the output; stdout:\n${p.stdout()}\nstderr:\n${p.stderr()}`);
}

async function stop(p: Proc): Promise<void> {
  if (p.child.exitCode === null) p.child.kill('SIGTERM');
  await exitOf(p, 10_000);
}

/** Holds a free port, as another program would. */
async function occupy(port = 0): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve());
  });
  return server;
}
const portOf = (s: Server) => (s.address() as AddressInfo).port;
const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(() => {
  for (const f of [PROFILES, GATEWAY, STANDALONE, SPLIT]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run node tools/build.mjs first (npm test does)`);
  }
});

describe('access log', () => {
  async function requests(level: string): Promise<Array<Record<string, unknown>>> {
    const p = run(PROFILES, { PORT: '0', LOG_LEVEL: level });
    try {
      const [, port] = await waitFor(p, /listening on port (\d+)/);
      const base = `http://127.0.0.1:${port}`;
      await fetch(`${base}/api/v1/admin/profiles/kinds?token=query-secret`, { headers: { authorization: 'Bearer header-secret', cookie: 'sid=cookie-secret', 'x-request-id': 'req-0001' } });
      await fetch(`${base}/api/v1/no/such/route`, { headers: { 'x-request-id': 'req-0002' } });
      await fetch(`${base}/healthz`);
      // The line is written when the response finishes, right after the client has it.
      await waitFor(p, /req-0002/);
      return jsonLines(p.stdout()).filter((l) => typeof l.requestId === 'string' && 'status' in l);
    } finally {
      await stop(p);
    }
  }

  it('is one concise line per request at info: method, path, status, duration, request id; no headers', async () => {
    const lines = await requests('info');
    expect(lines).toHaveLength(2);
    const [denied, unknown] = lines;
    expect(denied).toMatchObject({ level: 30, service: 'profiles', requestId: 'req-0001', method: 'GET', path: '/api/v1/admin/profiles/kinds', status: 401, ms: expect.any(Number) });
    expect(denied.msg).toMatch(/^GET \/api\/v1\/admin\/profiles\/kinds 401 \d+ms$/);
    expect(unknown).toMatchObject({ requestId: 'req-0002', status: 404, msg: expect.stringMatching(/^GET \/api\/v1\/no\/such\/route 404 \d+ms$/) });
    for (const l of lines) expect(Object.keys(l).sort()).toEqual(['level', 'method', 'ms', 'msg', 'path', 'requestId', 'service', 'status', 'time']);
    const text = JSON.stringify(lines);
    expect(text).not.toMatch(/secret|headers|user-agent/);
  });

  it('carries the request and response headers at debug, credentials redacted', async () => {
    const lines = await requests('debug');
    const denied = lines.find((l) => l.requestId === 'req-0001') as { req: { url: string; headers: Record<string, string> }; res: { headers: Record<string, unknown> } };
    expect(denied).toMatchObject({ status: 401, path: '/api/v1/admin/profiles/kinds' });
    expect(denied.req.headers).toMatchObject({ authorization: '[redacted]', cookie: '[redacted]', 'x-request-id': 'req-0001' });
    expect(denied.req.url).toBe('/api/v1/admin/profiles/kinds?token=[redacted]');
    expect(denied.res.headers).toHaveProperty('x-request-id', 'req-0001');
    expect(JSON.stringify(lines)).not.toMatch(/header-secret|cookie-secret|query-secret/);
  });
});

describe('LOG_PRETTY', () => {
  it('prints human-readable lines instead of JSON, access lines included', async () => {
    const p = run(PROFILES, { PORT: '0', LOG_LEVEL: 'info', LOG_PRETTY: 'true' });
    try {
      const [, port] = await waitFor(p, /listening on port (\d+)/);
      await fetch(`http://127.0.0.1:${port}/api/v1/no/such/route`, { headers: { 'x-request-id': 'req-pretty' } });
      await waitFor(p, /req-pretty/);
      const lines = p.stdout().split('\n').filter(Boolean);
      expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
      expect(lines.find((l) => l.includes('listening on port'))).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO/);
      expect(lines.find((l) => l.includes('req-pretty'))).toMatch(/INFO.*GET \/api\/v1\/no\/such\/route 404 \d+ms/);
      expect(p.stderr()).toBe('');
    } finally {
      await stop(p);
    }
  });
});

describe('an unknown BUS is refused in every mode', () => {
  it.each([
    ['one service', PROFILES, 'profiles: Invalid configuration'],
    ['the gateway', GATEWAY, 'gateway: Invalid configuration'],
    ['standalone', STANDALONE, 'flowplane: Invalid configuration'],
    ['split mode', SPLIT, 'split: Invalid configuration'],
  ])('%s exits 1 naming BUS and the valid values', async (_mode, file, prefix) => {
    const p = run(file, { PORT: '0', BUS: 'rabbitmq', DATA_DIR: tempDir('bus') });
    expect(await exitOf(p)).toBe(1);
    expect(p.stderr()).toContain(prefix);
    expect(p.stderr()).toContain('BUS: BUS must be one of the following values: memory, kafka');
    expect(p.stderr()).not.toMatch(/\n\s+at /);
  });

  it('standalone refuses BUS=kafka, and split mode BUS=memory, naming the mode that runs it', async () => {
    const standalone = run(STANDALONE, { PORT: '0', BUS: 'kafka', DATA_DIR: tempDir('bus') });
    expect(await exitOf(standalone)).toBe(1);
    expect(standalone.stderr()).toMatch(/BUS=kafka is not available here: .*npm run start:split/);
    const split = run(SPLIT, { BUS: 'memory' });
    expect(await exitOf(split)).toBe(1);
    expect(split.stderr()).toMatch(/BUS=memory is not available here: .*npm start/);
  });
});

describe('a busy port', () => {
  let taken: Server;
  beforeAll(async () => {
    taken = await occupy();
  });
  afterAll(() => close(taken));

  const oneLine = (stderr: string) => stderr.split('\n').filter(Boolean);

  it('stops one service with one line naming the port and PORT, exit code 1', async () => {
    const port = portOf(taken);
    const p = run(PROFILES, { PORT: String(port) });
    expect(await exitOf(p)).toBe(1);
    expect(oneLine(p.stderr())).toEqual([`profiles: port ${port} is already in use (another process listens on it): set PORT to a free port`]);
  });

  it('names METRICS_PORT when the metrics listener is the one that cannot bind', async () => {
    const port = portOf(taken);
    const p = run(PROFILES, { PORT: '0', METRICS_PORT: String(port) });
    expect(await exitOf(p)).toBe(1);
    expect(oneLine(p.stderr())).toEqual([`profiles: port ${port} is already in use (another process listens on it): set METRICS_PORT to a free port`]);
  });

  it('stops standalone with one line naming the port, the service and the PORT offsets', async () => {
    // profiles starts first, on PORT+3: take that one.
    const port = portOf(taken);
    const dataDir = tempDir('busy');
    const p = run(STANDALONE, { PORT: String(port - 3), DATA_DIR: dataDir });
    try {
      expect(await exitOf(p)).toBe(1);
      const lines = oneLine(p.stderr());
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(
        `flowplane: port ${port} is already in use (profiles listens on PORT+3, PORT=${port - 3}): standalone puts the gateway on PORT and the other services on PORT+1…PORT+7; set PORT to a base whose 8 ports are free, or PORT=0 for random ports`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
