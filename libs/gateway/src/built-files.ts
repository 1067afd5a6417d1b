import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { errorBody, requestIdOf } from '@flowplane/platform/http';

/**
 * Serving the front ends tools/build.mjs builds into dist/ (the chat widget and the admin console):
 * files read again when their mtime changes, strong ETags, 304s, gzip for text, error bodies.
 */

/** A file of a build, as last read. */
export interface BuiltFile {
  mtimeMs: number;
  body: Buffer;
  etag: string;
  /** The gzipped body, made on first demand and kept with the file. */
  gzipped?: Promise<Buffer | undefined>;
}

/** `dist/<name>` at the repository (or image) root. */
export function builtDir(name: string, from = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.join(dir, 'dist', name);
}

/** A strong ETag of a body. */
export function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** The regular files of one build directory, each read again only when its mtime changed. */
export class BuiltFiles {
  private readonly cache = new Map<string, BuiltFile>();

  constructor(readonly dir: string) {}

  /** A file inside the directory (never outside it), undefined when absent. */
  async load(rel: string): Promise<BuiltFile | undefined> {
    const full = path.join(this.dir, rel);
    if (!full.startsWith(this.dir + path.sep)) return undefined;
    const info = await stat(full).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const seen = this.cache.get(rel);
    if (seen?.mtimeMs === info.mtimeMs) return seen;
    const body = await readFile(full);
    const loaded = { mtimeMs: info.mtimeMs, body, etag: etagOf(body) };
    // Builds hold few files and hashed ones never change: the cache stays small.
    this.cache.set(rel, loaded);
    return loaded;
  }
}

const gzipAsync = promisify(gzip);
/** Text worth compressing (scripts, styles, pages, SVG); below this size gzip saves nothing. */
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
 * Sends a file, gzipped when it is text and the client takes gzip (the platform has no compressing
 * proxy in front of it under `npm start`; scripts shrink to a third). Each encoding has its own
 * strong ETag; a match on either answers 304.
 */
export async function sendBuiltFile(req: IncomingMessage, res: ServerResponse, file: BuiltFile, type: string, cache: string): Promise<void> {
  const compressible = COMPRESSIBLE.test(type) && file.body.length >= MIN_GZIP_BYTES;
  const gzipped = compressible && acceptsGzip(req.headers['accept-encoding']) ? await (file.gzipped ??= gzipAsync(file.body, { level: 9 }).catch(() => undefined)) : undefined;
  const gzipEtag = `${file.etag.slice(0, -1)}-gz"`;
  if (compressible) {
    // Keep what the caller varies on already (the widget's CORS varies on Origin).
    const vary = res.getHeader('vary');
    res.setHeader('Vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
  }
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

/** The platform's error body for a request a build's files cannot answer (never cached). */
export function sendBuiltError(req: IncomingMessage, res: ServerResponse, status: number, message: string, code: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(errorBody(status, message, { code, requestId: requestIdOf(req) })));
}
