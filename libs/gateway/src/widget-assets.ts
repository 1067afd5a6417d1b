import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { BuiltFiles, builtDir, sendBuiltError, sendBuiltFile } from './built-files';

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


/** The built widget's directory: dist/widget at the repository (or image) root. */
export function defaultWidgetDir(from = __dirname): string {
  return builtDir('widget', from);
}

/**
 * Serves the chat widget built by tools/build.mjs: `GET /widget/flowplane-chat.js` and the demo page
 * `GET /widget/` (public), with a strong ETag, short caching and CORS for WIDGET_ALLOWED_ORIGINS (a
 * module script from another site is fetched in CORS mode). A rebuild is picked up without restart.
 */
export class WidgetAssets {
  private readonly files: BuiltFiles;
  private readonly anyOrigin: boolean;

  constructor(
    dir: string,
    private readonly origins: readonly string[],
  ) {
    this.files = new BuiltFiles(path.resolve(dir));
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
    const file = await this.files.load(entry.file);
    if (!file) return this.error(req, res, 404, 'the chat widget is not built (npm run build builds it)', 'WIDGET_NOT_BUILT');
    return sendBuiltFile(req, res, file, entry.type, entry.cache);
  }

  private error(req: IncomingMessage, res: ServerResponse, status: number, message: string, code: string): void {
    sendBuiltError(req, res, status, message, code);
  }
}
