import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { errorBody, requestIdOf } from '@flowplane/platform/http';

/** Where the gateway serves the chat widget: the module and its demo page. */
export const WIDGET_MOUNT = '/widget';

/**
 * The public assistant and i18n routes an embedded chat widget calls. Their CORS follows
 * WIDGET_ALLOWED_ORIGINS; every other route (admin ones included) keeps GATEWAY_CORS_ORIGINS.
 */
const WIDGET_API = /^\/api\/v1\/(assistant\/(messages|messages\/[^/]+\/events|config|feedback|handoff|chats\/me\/[^/]+)|i18n\/(messages|locales))$/;

/** Whether a path (without query) is one of the widget's API routes. */
export function isWidgetApiPath(path: string): boolean {
  return WIDGET_API.test(path);
}

/** The CORS `origin` option for the widget's routes: `*`, or both allow lists together. */
export function widgetCorsOrigin(widgetOrigins: readonly string[], gatewayOrigins: readonly string[]): '*' | string[] | false {
  if (widgetOrigins.includes('*') || gatewayOrigins.includes('*')) return '*';
  const all = [...new Set([...widgetOrigins, ...gatewayOrigins])];
  return all.length ? all : false;
}

const FILES: Record<string, { file: string; type: string; cache: string }> = {
  // A stable URL in every embedding site's script tag, so not content-hashed: browsers keep it five
  // minutes, then revalidate with the ETag (a 304 costs headers only).
  '/widget/flowplane-chat.js': { file: 'flowplane-chat.js', type: 'text/javascript; charset=utf-8', cache: 'public, max-age=300' },
  '/widget/': { file: 'index.html', type: 'text/html; charset=utf-8', cache: 'public, no-cache' },
  '/widget/index.html': { file: 'index.html', type: 'text/html; charset=utf-8', cache: 'public, no-cache' },
};

interface Loaded {
  mtimeMs: number;
  body: Buffer;
  etag: string;
}

/** The built widget's directory: dist/widget at the repository (or image) root. */
export function defaultWidgetDir(from = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.join(dir, 'dist', 'widget');
}

/**
 * Serves the chat widget built by tools/build.mjs: `GET /widget/flowplane-chat.js` and the demo page
 * `GET /widget/` (public), with a strong ETag, short caching and CORS for WIDGET_ALLOWED_ORIGINS (a
 * module script from another site is fetched in CORS mode). A rebuild is picked up without restart.
 */
export class WidgetAssets {
  private readonly cache = new Map<string, Loaded>();
  private readonly anyOrigin: boolean;

  constructor(
    private readonly dir: string,
    private readonly origins: readonly string[],
  ) {
    this.anyOrigin = origins.includes('*');
  }

  /** Express-style middleware: answers `/widget` and `/widget/*`, passes everything else on. */
  middleware() {
    return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const p = q === -1 ? url : url.slice(0, q);
      if (p !== WIDGET_MOUNT && !p.startsWith(`${WIDGET_MOUNT}/`)) return next();
      void this.answer(req, res, p).catch(() => this.error(req, res, 500, 'the widget could not be read', 'INTERNAL'));
    };
  }

  private cors(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    if (this.anyOrigin) res.setHeader('Access-Control-Allow-Origin', '*');
    else {
      res.setHeader('Vary', 'Origin');
      if (origin && this.origins.includes(origin)) res.setHeader('Access-Control-Allow-Origin', origin);
    }
  }

  private async answer(req: IncomingMessage, res: ServerResponse, p: string): Promise<void> {
    if (p === WIDGET_MOUNT) {
      res.writeHead(308, { location: `${WIDGET_MOUNT}/` }).end();
      return;
    }
    this.cors(req, res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-methods': 'GET, HEAD', 'access-control-max-age': '600' }).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD, OPTIONS');
      return this.error(req, res, 405, `${req.method} is not allowed on ${p}`, 'METHOD_NOT_ALLOWED');
    }
    const entry = FILES[p];
    if (!entry) return this.error(req, res, 404, `no widget file at ${p}`, 'NOT_FOUND');
    const file = await this.load(entry.file);
    if (!file) return this.error(req, res, 404, 'the chat widget is not built (npm run build builds it)', 'WIDGET_NOT_BUILT');
    res.setHeader('ETag', file.etag);
    res.setHeader('Cache-Control', entry.cache);
    const match = req.headers['if-none-match'];
    if (match && match.split(',').some((t) => t.trim().replace(/^W\//, '') === file.etag)) {
      res.writeHead(304).end();
      return;
    }
    res.writeHead(200, { 'content-type': entry.type, 'content-length': file.body.length });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  /** A file of the build, read again only when its mtime changed. */
  private async load(name: string): Promise<Loaded | undefined> {
    const full = path.join(this.dir, name);
    const info = await stat(full).catch(() => undefined);
    if (!info) return undefined;
    const seen = this.cache.get(name);
    if (seen?.mtimeMs === info.mtimeMs) return seen;
    const body = await readFile(full);
    const loaded = { mtimeMs: info.mtimeMs, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    this.cache.set(name, loaded);
    return loaded;
  }

  private error(req: IncomingMessage, res: ServerResponse, status: number, message: string, code: string): void {
    if (res.headersSent) return void res.destroy();
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(errorBody(status, message, { code, requestId: requestIdOf(req) })));
  }
}
