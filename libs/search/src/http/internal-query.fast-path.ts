import { type INestApplication, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PinoLogger } from 'nestjs-pino';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessDeclarationOf, enforce, TokenVerifier } from '@flowplane/platform/auth';
import { HTTP_METRICS, type HttpMetricsMiddleware } from '@flowplane/platform/health';
import { defaultLocaleFromEnv, frameAncestorsFromEnv, jsonBodyVerifier, requestIdMiddleware, requestLocaleMiddleware, securityHeaders, toErrorBody } from '@flowplane/platform/http';
import type { ServiceContext } from '@flowplane/platform/service';
import { toSearchException } from '../domain/search.errors';
import { InternalIndexesController } from './internal-indexes.controller';

/** The route as Express routes it (the metrics label and the access line of the Nest route). */
export const INTERNAL_QUERY_ROUTE = '/internal/search/indexes/:name/query';
const PREFIX = '/internal/search/indexes/';
const SUFFIX = '/query';
/** Index names the fast path takes as they stand (no percent-escapes to decode); others go to Express. */
const PLAIN_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const BEARER = /^Bearer\s+(\S+)$/i;
const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * `POST /internal/search/indexes/{name}/query` in front of Express: the retrieval node queries
 * here once per chat turn, and at 10,000 chunks the router, guard and interceptor chain cost about
 * as much as the query itself. It answers what the Nest route answers (the controller's own
 * method does the work; errors become the same bodies through the same mapping), with the same
 * platform middleware run on the raw request (request id and its async scope, request locale,
 * security headers, request metrics) and the same access line. It takes only a request it can
 * judge before reading it: this path with a plain index name and no query string, a JSON body of
 * a declared length within HTTP_BODY_LIMIT, no content encoding, and a bearer token the verifier
 * has already verified (cached) that carries the route's permission. Everything else, among it
 * every token the guard would refuse (401, 403), goes to the Nest route.
 */
export function internalQueryFastPath(app: INestApplication, ctx: ServiceContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const verifier = app.get(TokenVerifier);
  const controller = app.get(InternalIndexesController);
  const metrics = app.get<HttpMetricsMiddleware>(HTTP_METRICS);
  const decl = accessDeclarationOf(app.get(Reflector), InternalIndexesController.prototype.query, InternalIndexesController);
  const limit = byteLimit(ctx.config.HTTP_BODY_LIMIT);
  const locale = requestLocaleMiddleware(defaultLocaleFromEnv(ctx.env));
  const security = securityHeaders(frameAncestorsFromEnv(ctx.env));
  const verifyJson = jsonBodyVerifier();
  const log = new Logger('Exceptions');
  // The route must keep its declaration; without one the Nest route refuses everything itself.
  if (!decl?.internal || limit === undefined) return () => false;

  /** The index name when the request is one to take. */
  const admitted = (req: IncomingMessage): string | undefined => {
    const url = req.url;
    if (req.method !== 'POST' || url === undefined || !url.startsWith(PREFIX) || !url.endsWith(SUFFIX)) return undefined;
    const name = url.slice(PREFIX.length, url.length - SUFFIX.length);
    if (!PLAIN_NAME.test(name)) return undefined;
    const h = req.headers;
    if (h['content-encoding'] !== undefined || h['transfer-encoding'] !== undefined) return undefined;
    const type = h['content-type'];
    if (type === undefined || !JSON_TYPE.test(type)) return undefined;
    const length = Number(h['content-length']);
    if (!Number.isSafeInteger(length) || length <= 0 || length > limit) return undefined;
    const m = h.authorization === undefined ? null : BEARER.exec(h.authorization);
    if (!m) return undefined;
    const principal = verifier.verifyCached(m[1], { node: decl.node });
    if (!principal) return undefined;
    try {
      enforce(decl, principal);
    } catch {
      return undefined;
    }
    return name;
  };

  return (req, res) => {
    const name = admitted(req);
    if (name === undefined) return false;
    const started = process.hrtime.bigint();
    (res as ServerResponse & { locals?: object }).locals = { metricsRoute: INTERNAL_QUERY_ROUTE };
    requestIdMiddleware(req as IncomingMessage & { id?: string }, res, () =>
      locale(req, res, () =>
        security(req as never, res as never, () =>
          metrics(req as never, res as never, () => {
            res.once('close', () => accessLog(ctx.name, String((req as IncomingMessage & { id?: unknown }).id), req.url as string, res, started));
            readBody(req, res, (buf) => void handle(name, buf, req, res));
          }),
        ),
      ),
    );
    return true;
  };

  async function handle(name: string, buf: Buffer, req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      verifyJson(req, res, buf, 'utf-8');
      const result = await controller.query(name, parseJson(buf) as Record<string, unknown>);
      const json = JSON.stringify(result);
      res.statusCode = 200;
      send(res, json);
    } catch (err) {
      sendError(res, toSearchException(err), (errorId, e) => log.error({ errorId, err: e, method: req.method, url: req.url }, `request failed: ${(e as Error)?.message ?? String(e)}`));
    }
  }
}

/** Reads the declared number of bytes; a request that breaks off or sends another length is dropped (no one reads an answer). */
function readBody(req: IncomingMessage, res: ServerResponse, done: (buf: Buffer) => void): void {
  const expected = Number(req.headers['content-length']);
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > expected) {
      req.destroy();
      res.destroy();
      return;
    }
    chunks.push(c);
  });
  req.once('end', () => {
    if (size !== expected) {
      res.destroy();
      return;
    }
    done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  });
  req.once('error', () => res.destroy());
}

/** body-parser's strict JSON parse of a UTF-8 body (BOM stripped, empty body `{}`), with its error's `type` and `body`. */
function parseJson(buf: Buffer): unknown {
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  try {
    if (!startsLikeJsonContainer(text)) throw new SyntaxError('strict violation');
    return JSON.parse(text) as unknown;
  } catch {
    throw Object.assign(new Error('request body is not valid JSON'), { type: 'entity.parse.failed', body: text, status: 400, expose: true });
  }
}

/** body-parser's strict mode: the first character after JSON whitespace opens an object or an array. */
function startsLikeJsonContainer(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x7b || c === 0x5b;
  }
  return false;
}

/** A JSON body as Express's res.json sends it (type, length, weak ETag). */
function send(res: ServerResponse, json: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.setHeader('ETag', weakEtag(json));
  res.end(json);
}

/** What the exception filter writes: the standard error body with the request id. */
function sendError(res: ServerResponse, err: unknown, log: (errorId: string, err: unknown) => void): void {
  const body = toErrorBody(err, log);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = res.getHeader('X-Request-Id');
  if (typeof requestId === 'string' && body.requestId === undefined) body.requestId = requestId;
  res.statusCode = body.statusCode;
  send(res, JSON.stringify(body));
}

/** Express's default (weak) ETag of a response body. */
function weakEtag(body: string): string {
  const hash = createHash('sha1').update(body, 'utf8').digest('base64').substring(0, 27);
  return `W/"${Buffer.byteLength(body).toString(16)}-${hash}"`;
}

/** HTTP_BODY_LIMIT (`100kb`, `1mb`, bytes) as bytes; undefined when it cannot be read (the fast path then stays off). */
function byteLimit(limit: unknown): number | undefined {
  if (typeof limit === 'number') return limit;
  const m = typeof limit === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit) : null;
  if (!m) return undefined;
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.floor(Number(m[1]) * unit);
}

/** The access line pino-http writes for requests through Express (`METHOD /path STATUS Nms`, the path as requested). */
function accessLog(service: string, requestId: string, path: string, res: ServerResponse, started: bigint): void {
  const log = PinoLogger.root;
  const status = res.statusCode;
  const level = status >= 500 ? 'warn' : 'info';
  if (!log?.isLevelEnabled(level)) return;
  const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  log[level]({ service, requestId, method: 'POST', path, status, ms }, `POST ${path} ${status} ${ms}ms`);
}
