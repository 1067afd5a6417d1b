import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { errorBody, requestIdOf } from '@flowplane/platform/http';

/** Where the gateway serves the admin console (a single-page app built by Vite). */
export const CONSOLE_MOUNT = '/console';

/** How the console signs people in with OpenID Connect (absent: the development sign-in by pasted token). */
export interface ConsoleOidc {
  issuer: string;
  clientId: string;
  /** The token claim holding the caller's permissions. */
  permissionsClaim: string;
  scope: string;
}

/** `GET /console/config.json`: what the console reads before it draws anything. Public, so never a secret. */
export interface ConsoleConfigBody {
  oidc: ConsoleOidc | null;
  apiBase: string;
}

/** The console settings of the gateway's environment (see GatewayEnv `CONSOLE_OIDC_*`). */
export interface ConsoleEnv {
  CONSOLE_OIDC_ISSUER?: string;
  CONSOLE_OIDC_CLIENT_ID?: string;
  CONSOLE_OIDC_PERMS_CLAIM: string;
  CONSOLE_OIDC_SCOPE: string;
}

/** The console's configuration from the environment: OIDC only when both issuer and client id are set. */
export function consoleConfig(env: ConsoleEnv): ConsoleConfigBody {
  const oidc =
    env.CONSOLE_OIDC_ISSUER && env.CONSOLE_OIDC_CLIENT_ID
      ? { issuer: env.CONSOLE_OIDC_ISSUER, clientId: env.CONSOLE_OIDC_CLIENT_ID, permissionsClaim: env.CONSOLE_OIDC_PERMS_CLAIM, scope: env.CONSOLE_OIDC_SCOPE }
      : null;
  return { oidc, apiBase: '/api/v1' };
}

/** The built console's directory: dist/console at the repository (or image) root. */
export function defaultConsoleDir(from = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.join(dir, 'dist', 'console');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Vite names everything under assets/ by content hash: a changed file gets a new URL. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page and anything without a hash: always revalidated (a 304 costs headers only), so a rebuild shows at once. */
const REVALIDATE = 'no-cache';

interface Loaded {
  mtimeMs: number;
  body: Buffer;
  etag: string;
  /** The gzipped body, made on first demand and kept with the file. */
  gzipped?: Promise<Buffer | undefined>;
}

const gzipAsync = promisify(gzip);
/** Text worth compressing (scripts, styles, the page, SVG); below this size gzip saves nothing. */
const COMPRESSIBLE = /^(text\/|application\/json|image\/svg\+xml)/;
const MIN_GZIP_BYTES = 512;

/** Whether an Accept-Encoding header takes gzip (by name or `*`, with a q above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [name = '', ...params] = part.split(';').map((x) => x.trim());
    const q = params.find((x) => x.startsWith('q='));
    return (name.toLowerCase() === 'gzip' || name === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * Serves the admin console built by tools/build.mjs into dist/console: `index.html` (no-cache, strong
 * ETag) for `/console/` and, as a single-page app's fallback, for any other path under it that is not
 * a file; hashed files under `/console/assets/` for a year (a missing one is a 404, never the page);
 * `GET /console/config.json` from the environment. With OIDC configured, the console's pages may also
 * connect to the issuer (discovery, token endpoint); every other response keeps the platform's CSP.
 */
export class ConsoleAssets {
  private readonly cache = new Map<string, Loaded>();
  private readonly config: Buffer;
  private readonly issuerOrigin?: string;

  private readonly dir: string;

  constructor(dir: string, config: ConsoleConfigBody) {
    this.dir = path.resolve(dir);
    this.config = Buffer.from(JSON.stringify(config));
    this.issuerOrigin = config.oidc ? new URL(config.oidc.issuer).origin : undefined;
  }

  /** Express-style middleware: answers `/console` and `/console/*`, passes everything else on. */
  middleware() {
    return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const p = q === -1 ? url : url.slice(0, q);
      if (p !== CONSOLE_MOUNT && !p.startsWith(`${CONSOLE_MOUNT}/`)) return next();
      if (p === CONSOLE_MOUNT) {
        res.writeHead(308, { location: `${CONSOLE_MOUNT}/${q === -1 ? '' : url.slice(q)}` }).end();
        return;
      }
      void this.answer(req, res, p).catch(() => this.error(req, res, 500, 'the console could not be read', 'INTERNAL'));
    };
  }

  private async answer(req: IncomingMessage, res: ServerResponse, p: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return this.error(req, res, 405, `${req.method} is not allowed on ${p}`, 'METHOD_NOT_ALLOWED');
    }
    this.relaxCsp(res);
    if (p === `${CONSOLE_MOUNT}/config.json`) return this.send(req, res, { body: this.config, etag: etagOf(this.config), mtimeMs: 0 }, 'application/json; charset=utf-8', REVALIDATE);
    let rel: string;
    try {
      rel = decodeURIComponent(p.slice(CONSOLE_MOUNT.length + 1));
    } catch {
      return this.error(req, res, 400, 'the path is not valid percent-encoding', 'BAD_PATH');
    }
    const normal = path.posix.normalize(`/${rel}`).slice(1);
    if (rel === 'assets' || rel.startsWith('assets/')) {
      const file = normal.startsWith('assets/') ? await this.load(normal) : undefined;
      if (!file) return this.error(req, res, 404, `no console asset at ${p}`, 'NOT_FOUND');
      return this.send(req, res, file, typeOf(normal), IMMUTABLE);
    }
    // Files at the top of the build (a favicon, robots.txt) are served as they are; every other path
    // is a route of the app, which reads the address itself.
    const own = normal && !normal.endsWith('/') && !normal.includes('\0') ? await this.load(normal) : undefined;
    if (own && normal !== 'index.html') return this.send(req, res, own, typeOf(normal), REVALIDATE);
    const page = await this.load('index.html');
    if (!page) return this.error(req, res, 404, 'the admin console is not built (npm run console:build, or npm start, builds it)', 'CONSOLE_NOT_BUILT');
    return this.send(req, res, page, TYPES['.html'], REVALIDATE);
  }

  /** With OIDC, the console's scripts fetch the issuer's discovery document and token endpoint. */
  private relaxCsp(res: ServerResponse): void {
    if (!this.issuerOrigin) return;
    const csp = res.getHeader('content-security-policy');
    if (typeof csp === 'string') res.setHeader('content-security-policy', csp.replace(/(^|;)\s*connect-src([^;]*)/, `$1connect-src$2 ${this.issuerOrigin}`));
  }

  /**
   * Sends a file, gzipped when it is text and the client takes gzip (the platform has no compressing
   * proxy in front of it under `npm start`, and the console's scripts shrink to a third). Each
   * encoding has its own strong ETag; a match on either answers 304.
   */
  private async send(req: IncomingMessage, res: ServerResponse, file: Loaded, type: string, cache: string): Promise<void> {
    const compressible = COMPRESSIBLE.test(type) && file.body.length >= MIN_GZIP_BYTES;
    const gzipped = compressible && acceptsGzip(req.headers['accept-encoding']) ? await (file.gzipped ??= gzipAsync(file.body, { level: 9 }).catch(() => undefined)) : undefined;
    const gzipEtag = `${file.etag.slice(0, -1)}-gz"`;
    if (compressible) res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Cache-Control', cache);
    // The same bytes either way: a copy the client holds in the other encoding is still current.
    const held = (req.headers['if-none-match'] ?? '').split(',').map((t) => t.trim().replace(/^W\//, '')).find((t) => t === file.etag || t === gzipEtag);
    if (held) {
      res.writeHead(304, { etag: held }).end();
      return;
    }
    res.setHeader('ETag', gzipped ? gzipEtag : file.etag);
    const body = gzipped ?? file.body;
    res.writeHead(200, { 'content-type': type, 'content-length': body.length, ...(gzipped ? { 'content-encoding': 'gzip' } : {}) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  /** A regular file inside the build, read again only when its mtime changed; undefined when absent. */
  private async load(rel: string): Promise<Loaded | undefined> {
    const full = path.join(this.dir, rel);
    if (!full.startsWith(this.dir + path.sep)) return undefined;
    const info = await stat(full).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const seen = this.cache.get(rel);
    if (seen?.mtimeMs === info.mtimeMs) return seen;
    const body = await readFile(full);
    const loaded = { mtimeMs: info.mtimeMs, body, etag: etagOf(body) };
    // Hashed assets never change; the page and top-level files are few. The cache stays small.
    this.cache.set(rel, loaded);
    return loaded;
  }

  private error(req: IncomingMessage, res: ServerResponse, status: number, message: string, code: string): void {
    if (res.headersSent) return void res.destroy();
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify(errorBody(status, message, { code, requestId: requestIdOf(req) })));
  }
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

function typeOf(name: string): string {
  return TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}
