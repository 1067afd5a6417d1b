import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { type BuiltFile, BuiltFiles, builtDir, etagOf, sendBuiltError, sendBuiltFile } from './built-files';

export { acceptsGzip } from './built-files';

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
  return builtDir('console', from);
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




/**
 * Serves the admin console built by tools/build.mjs into dist/console: `index.html` (no-cache, strong
 * ETag) for `/console/` and, as a single-page app's fallback, for any other path under it that is not
 * a file; hashed files under `/console/assets/` for a year (a missing one is a 404, never the page);
 * `GET /console/config.json` from the environment. With OIDC configured, the console's pages may also
 * connect to the issuer (discovery, token endpoint); every other response keeps the platform's CSP.
 */
export class ConsoleAssets {
  private readonly files: BuiltFiles;
  /** `config.json`, made once from the environment. */
  private readonly configFile: BuiltFile;
  private readonly issuerOrigin?: string;

  constructor(dir: string, config: ConsoleConfigBody) {
    this.files = new BuiltFiles(path.resolve(dir));
    const body = Buffer.from(JSON.stringify(config));
    this.configFile = { body, etag: etagOf(body), mtimeMs: 0 };
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
      void this.answer(req, res, p).catch(() => sendBuiltError(req, res, 500, 'the console could not be read', 'INTERNAL'));
    };
  }

  private async answer(req: IncomingMessage, res: ServerResponse, p: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendBuiltError(req, res, 405, `${req.method} is not allowed on ${p}`, 'METHOD_NOT_ALLOWED');
    }
    this.relaxCsp(res);
    if (p === `${CONSOLE_MOUNT}/config.json`) return sendBuiltFile(req, res, this.configFile, 'application/json; charset=utf-8', REVALIDATE);
    let rel: string;
    try {
      rel = decodeURIComponent(p.slice(CONSOLE_MOUNT.length + 1));
    } catch {
      return sendBuiltError(req, res, 400, 'the path is not valid percent-encoding', 'BAD_PATH');
    }
    const normal = path.posix.normalize(`/${rel}`).slice(1);
    if (rel === 'assets' || rel.startsWith('assets/')) {
      const file = normal.startsWith('assets/') ? await this.files.load(normal) : undefined;
      if (!file) return sendBuiltError(req, res, 404, `no console asset at ${p}`, 'NOT_FOUND');
      return sendBuiltFile(req, res, file, typeOf(normal), IMMUTABLE);
    }
    // Files at the top of the build (a favicon, robots.txt) are served as they are; every other path
    // is a route of the app, which reads the address itself.
    const own = normal && !normal.endsWith('/') && !normal.includes('\0') ? await this.files.load(normal) : undefined;
    if (own && normal !== 'index.html') return sendBuiltFile(req, res, own, typeOf(normal), REVALIDATE);
    const page = await this.files.load('index.html');
    if (!page) return sendBuiltError(req, res, 404, 'the admin console is not built (npm run console:build, or npm start, builds it)', 'CONSOLE_NOT_BUILT');
    return sendBuiltFile(req, res, page, TYPES['.html'], REVALIDATE);
  }

  /** With OIDC, the console's scripts fetch the issuer's discovery document and token endpoint. */
  private relaxCsp(res: ServerResponse): void {
    if (!this.issuerOrigin) return;
    const csp = res.getHeader('content-security-policy');
    if (typeof csp === 'string') res.setHeader('content-security-policy', csp.replace(/(^|;)\s*connect-src([^;]*)/, `$1connect-src$2 ${this.issuerOrigin}`));
  }



}


function typeOf(name: string): string {
  return TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}
