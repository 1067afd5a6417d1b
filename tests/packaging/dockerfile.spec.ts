import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DockerfileParser, type Copy, type Env, type Instruction } from 'dockerfile-ast';

// Static checks of docker/Dockerfile (no Docker daemon here) plus a real run of the health probe
// script the image uses.
const root = path.resolve(__dirname, '../..');
const dockerfilePath = path.join(root, 'docker/Dockerfile');
const dockerfile = DockerfileParser.parse(readFileSync(dockerfilePath, 'utf8'));
const APPS = [
  'gateway',
  'flow-runtime',
  'deployments',
  'profiles',
  'assistant',
  'i18n',
  'search',
  'hub',
  'standalone',
];

interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

// Groups instructions under the FROM that precedes them.
function stages(): Stage[] {
  const out: Stage[] = [];
  for (const i of dockerfile.getInstructions()) {
    if (i.getKeyword() === 'FROM') {
      const from = dockerfile.getFROMs().find((f) => f.getRange().start.line === i.getRange().start.line);
      out.push({ name: from?.getBuildStage() ?? '', image: from?.getImage() ?? '', instructions: [] });
    } else if (out.length) {
      out[out.length - 1].instructions.push(i);
    }
  }
  return out;
}

const all = stages();
const stage = (name: string): Stage => {
  const s = all.find((x) => x.name === name);
  if (!s) throw new Error(`no stage ${name}`);
  return s;
};
const runtime = all[all.length - 1];
// Copy#getFromFlag() misses --from when other flags are present, so read the flags directly.
const fromFlag = (c: Copy): string | undefined =>
  c
    .getFlags()
    .find((f) => f.getName() === 'from')
    ?.getValue() ?? undefined;
const args = (i: Instruction): string => (i.getArgumentsContent() ?? '').replace(/\s+/g, ' ').trim();
const runs = (s: Stage): string[] => s.instructions.filter((i) => i.getKeyword() === 'RUN').map(args);
const copies = (s: Stage): Copy[] => s.instructions.filter((i) => i.getKeyword() === 'COPY') as Copy[];
const envOf = (s: Stage): Record<string, string> =>
  Object.fromEntries(
    s.instructions
      .filter((i) => i.getKeyword() === 'ENV')
      .flatMap((i) => (i as Env).getProperties().map((p) => [p.getName(), p.getValue() ?? ''])),
  );

describe('docker/Dockerfile', () => {
  it('is multi-stage on node:20-bookworm-slim, with the runtime stage last', () => {
    expect(all.map((s) => s.name)).toEqual(['toolchain', 'build', 'prod-deps', 'runtime']);
    const beforeFirstFrom = dockerfile.getInstructions().slice(
      0,
      dockerfile.getInstructions().findIndex((i) => i.getKeyword() === 'FROM'),
    );
    const nodeImageArg = beforeFirstFrom.find(
      (i) => i.getKeyword() === 'ARG' && args(i).startsWith('NODE_IMAGE='),
    );
    expect(nodeImageArg && args(nodeImageArg)).toBe('NODE_IMAGE=node:20-bookworm-slim');
    expect(stage('toolchain').image).toBe('${NODE_IMAGE}');
    expect(runtime.image).toBe('${NODE_IMAGE}');
  });

  it('declares ARG APP in the runtime stage and accepts exactly the deployable apps', () => {
    expect(runtime.instructions.some((i) => i.getKeyword() === 'ARG' && args(i) === 'APP')).toBe(true);
    const guard = runs(runtime).find((r) => r.startsWith('case "$APP" in'));
    expect(guard).toBeDefined();
    const accepted = /in (\S+)\)/.exec(guard as string)?.[1].split('|');
    expect(accepted).toEqual(APPS);
    // tools/build.mjs compiles apps/<app>/src/main.ts to the dist/apps/<app>/src/main.js that CMD starts.
    for (const app of APPS) expect(statSync(path.join(root, 'apps', app, 'src/main.ts')).isFile()).toBe(true);
    // APP is declared only in the runtime stage, so the expensive stages are shared by all images.
    for (const s of all.slice(0, -1))
      expect(s.instructions.some((i) => i.getKeyword() === 'ARG' && args(i).startsWith('APP'))).toBe(false);
  });

  it('builds with the native toolchain: npm ci, then tools/build.mjs', () => {
    expect(runs(stage('toolchain')).join(' ')).toMatch(/apt-get install .*python3 make g\+\+/);
    expect(stage('build').image).toBe('toolchain');
    expect(runs(stage('build'))).toEqual(expect.arrayContaining(['npm ci', 'node tools/build.mjs']));
  });

  it('installs production dependencies only, in their own stage, and ships no compiler', () => {
    expect(stage('prod-deps').image).toBe('toolchain');
    expect(runs(stage('prod-deps')).join(' ')).toMatch(/npm ci --omit=dev/);
    const fromFlags = copies(runtime).map((c) => [fromFlag(c), args(c)]);
    expect(fromFlags).toContainEqual(['prod-deps', '/app/node_modules ./node_modules']);
    expect(fromFlags).toContainEqual(['build', '/app/dist ./dist']);
    // node_modules of the build stage hold dev dependencies; they must not reach the runtime.
    expect(fromFlags.filter(([from, a]) => from === 'build' && /node_modules/.test(a ?? ''))).toEqual([]);
    expect(runs(runtime).join(' ')).not.toMatch(/npm (ci|install)|apt-get install/);
    expect(readFileSync(dockerfilePath, 'utf8')).not.toMatch(/npm install/);
  });

  it('runs production mode as a non-root user', () => {
    expect(envOf(runtime).NODE_ENV).toBe('production');
    const users = runtime.instructions.filter((i) => i.getKeyword() === 'USER').map(args);
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1].split(':')[0];
    expect(['root', '0']).not.toContain(user);
    // Numeric, so Kubernetes can enforce runAsNonRoot without a runAsUser override.
    expect(user).toMatch(/^[1-9][0-9]*$/);
  });

  it('exposes PORT and health-checks /healthz with node (no curl in slim images)', () => {
    expect(runtime.instructions.some((i) => i.getKeyword() === 'EXPOSE' && args(i) === '${PORT}')).toBe(true);
    const hc = runtime.instructions.find((i) => i.getKeyword() === 'HEALTHCHECK');
    expect(hc && args(hc)).toBe('CMD ["node", "docker/healthcheck.cjs"]');
    expect(copies(runtime).map(args)).toContain('docker/healthcheck.cjs ./docker/healthcheck.cjs');
    expect(readFileSync(path.join(root, 'docker/healthcheck.cjs'), 'utf8')).toMatch(/\/healthz/);
  });

  it('starts dist/apps/$APP/src/main.js with node as PID 1', () => {
    const cmds = runtime.instructions.filter((i) => i.getKeyword() === 'CMD');
    expect(cmds).toHaveLength(1);
    expect(args(cmds[0])).toBe('exec node dist/apps/${APP}/src/main.js');
    expect(runs(runtime).join(' ')).toMatch(/test -f "dist\/apps\/\$\{APP\}\/src\/main\.js"/);
  });

  it('copies only sources that exist and that .dockerignore does not exclude', () => {
    const ignore = readFileSync(path.join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const must of ['**/node_modules', 'dist', '.git']) expect(ignore).toContain(must);
    const sources = all
      .flatMap(copies)
      .filter((c) => !fromFlag(c))
      .flatMap((c) =>
        c
          .getArguments()
          .slice(0, -1)
          .map((a) => a.getValue()),
      );
    expect(sources.length).toBeGreaterThan(5);
    for (const src of sources) {
      expect(existsSync(path.join(root, src))).toBe(true);
      const top = src.split('/')[0];
      expect(ignore).not.toContain(src);
      expect(ignore).not.toContain(top);
    }
  });
});

describe('docker/healthcheck.cjs', () => {
  let server: Server;
  let port: number;
  let status = 200;

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url === '/healthz' ? status : 404);
      res.end(req.url === '/healthz' ? 'ok' : 'nope');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  function probe(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [path.join(root, 'docker/healthcheck.cjs')], {
        env: { PATH: process.env.PATH ?? '', ...env },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  it('exits 0 when /healthz on $PORT answers 2xx', async () => {
    status = 200;
    await expect(probe({ PORT: String(port) })).resolves.toEqual({ code: 0, stderr: '' });
  });

  it('exits 1 and says why when /healthz answers 503', async () => {
    status = 503;
    const r = await probe({ PORT: String(port) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/answered 503/);
  });

  it('exits 1 when nothing listens on $PORT', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await probe({ PORT: String(free) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unreachable/);
  });
});
