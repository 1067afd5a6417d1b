import { type INestApplication, Logger, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PinoLogger } from 'nestjs-pino';
import { AsyncResource } from 'node:async_hooks';
import etag from 'etag';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AccessDeclaration, accessDeclarationOf, enforce, type Principal, TokenVerifier } from '@flowplane/platform/auth';
import { HTTP_METRICS, type HttpMetricsMiddleware } from '@flowplane/platform/health';
import { createValidationPipe, defaultLocaleFromEnv, frameAncestorsFromEnv, jsonBodyVerifier, requestIdMiddleware, requestLocaleMiddleware, securityHeaders, toErrorBody } from '@flowplane/platform/http';
import type { ServiceContext } from './service-definition';

/** A request the fast path has taken: who calls (undefined: anonymous on a public route) and its validated body. */
export interface FastJsonRequest<D> {
  who: Principal | undefined;
  dto: D;
  /** The path parameters `match` read from the path (empty for an exact path). */
  params: Record<string, string>;
  req: IncomingMessage;
  res: ServerResponse;
}

export interface JsonRouteFastPathOptions<D> {
  /** `POST` and the path Express routes: the exact path, or the route's template when `match` is given (the metrics label); a query string goes to Express. */
  path: string;
  /**
   * For a route with path parameters: the parameters of a request path (no query string) when the
   * fast path may take it, undefined otherwise (Express then routes it). Take only values Express
   * would hand the route unchanged (no percent-escapes to decode).
   */
  match?(path: string): Record<string, string> | undefined;
  /** The Nest controller and handler of the route: their access declaration decides who may call. */
  controller: Type;
  handler: (...args: never[]) => unknown;
  /** The body DTO the validation pipe checks. */
  dto: Type<D>;
  /** True only when the pipe certainly accepts `body` as is; anything else goes through the pipe. */
  plainlyValid(body: unknown): boolean;
  /** More conditions on a request (its headers) before it is taken; false leaves it to Express. */
  admit?(req: IncomingMessage, who: Principal | undefined): boolean;
  /** Answers the request (or throws: the standard error body is written, as the exception filter does). */
  handle(r: FastJsonRequest<D>): Promise<void>;
}

const BEARER = /^Bearer\s+(\S+)$/i;
const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * A JSON POST route answered in front of Express (`ServiceDefinition.interceptRequest`), for the
 * few routes whose throughput the whole request stack would halve: the same platform middleware
 * runs on the raw request (request id and its async scope, request locale, security headers,
 * request metrics under the route's label) and the same access line is written, without the
 * router, guard, pipe and interceptor chain of Nest.
 *
 * - It takes only a request it can judge before reading it: this exact path (or one `match` takes)
 *   with no query, a JSON
 *   body of a declared length within HTTP_BODY_LIMIT, no content encoding, and a caller the
 *   route's access declaration certainly admits: a bearer token the verifier has already verified
 *   (cached) that satisfies it, or no token at all on a public route. Every other request, among
 *   them every refused token (401, 403), goes to the Nest route, which stays the route's definition
 *   and produces those answers.
 * - A body it has read it judges as Express would: the JSON guard (UTF-8, depth), body-parser's
 *   strict parse, then the route's own check of the DTO, or the platform's validation pipe when
 *   that check does not pass at once, with the same error bodies as the exception filter.
 */
export function jsonRouteFastPath<D>(app: INestApplication, ctx: ServiceContext, o: JsonRouteFastPathOptions<D>): (req: IncomingMessage, res: ServerResponse) => boolean {
  const decl = accessDeclarationOf(app.get(Reflector), o.handler, o.controller);
  const limit = byteLimit(ctx.config.HTTP_BODY_LIMIT);
  // Without a declaration the Nest route refuses everything itself; a node route is not for this.
  if (!decl || decl.node !== undefined || limit === undefined) return () => false;
  const verifier = app.get(TokenVerifier);
  const metrics = app.get<HttpMetricsMiddleware>(HTTP_METRICS);
  const locale = requestLocaleMiddleware(defaultLocaleFromEnv(ctx.env));
  const security = securityHeaders(frameAncestorsFromEnv(ctx.env));
  const verifyJson = jsonBodyVerifier();
  const pipe = createValidationPipe();
  const log = new Logger('Exceptions');

  const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
  const taken = (req: IncomingMessage): { who: Principal | undefined; params: Record<string, string> } | undefined => {
    if (req.method !== 'POST' || req.url === undefined) return undefined;
    const params = o.match ? (req.url.includes('?') ? undefined : o.match(req.url)) : req.url === o.path ? NO_PARAMS : undefined;
    if (params === undefined) return undefined;
    const h = req.headers;
    if (h['content-encoding'] !== undefined || h['transfer-encoding'] !== undefined) return undefined;
    const type = h['content-type'];
    if (type === undefined || !JSON_TYPE.test(type)) return undefined;
    const length = Number(h['content-length']);
    if (!Number.isSafeInteger(length) || length <= 0 || length > limit) return undefined;
    const caller = admittedCaller(verifier, decl, h.authorization);
    if (caller === undefined) return undefined;
    const who = caller ?? undefined;
    if (o.admit && !o.admit(req, who)) return undefined;
    return { who, params };
  };

  return (req, res) => {
    const t = taken(req);
    if (!t) return false;
    const started = process.hrtime.bigint();
    (res as ServerResponse & { locals?: object }).locals = { metricsRoute: o.path };
    requestIdMiddleware(req as IncomingMessage & { id?: string }, res, () =>
      locale(req, res, () =>
        security(req as never, res as never, () =>
          metrics(req as never, res as never, () => {
            // The access line names the path as requested, as pino-http's does.
            res.once('close', () => accessLog(ctx.name, req.url as string, String((req as { id?: string }).id), res, started));
            readBody(req, res, (buf) => void handle(buf, t.who, t.params, req, res));
          }),
        ),
      ),
    );
    return true;
  };

  async function handle(buf: Buffer, who: Principal | undefined, params: Record<string, string>, req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      verifyJson(req, res, buf, 'utf-8');
      const body = parseJson(buf);
      const dto = o.plainlyValid(body) ? (body as D) : ((await pipe.transform(body, { type: 'body', metatype: o.dto, data: undefined })) as D);
      await o.handle({ who, dto, params, req, res });
    } catch (err) {
      sendError(res, err, (errorId, e) => log.error({ errorId, err: e, method: req.method, url: req.url }, `request failed: ${(e as Error)?.message ?? String(e)}`));
    }
  }
}

/**
 * The caller the guard would admit, decided from the Authorization header alone: the principal of
 * a token already verified, null for no token on a public route, undefined when only the guard can
 * tell (a token not verified yet, a malformed header, a refusal with its 401 or 403).
 */
export function admittedCaller(verifier: TokenVerifier, decl: AccessDeclaration, authorization: string | undefined): Principal | null | undefined {
  if (authorization === undefined) return decl.public ? null : undefined;
  const m = BEARER.exec(authorization);
  if (!m) return undefined;
  const principal = verifier.verifyCached(m[1], { node: decl.node });
  if (!principal) return undefined;
  if (decl.public) return principal;
  try {
    enforce(decl, principal);
  } catch {
    return undefined;
  }
  return principal;
}

/**
 * Reads the declared number of bytes; a request that breaks off or sends another length is dropped
 * (no one reads an answer). `done` runs in the caller's async scope (request id, locale), as
 * body-parser's callback does, not in the one of the socket that emits the body.
 */
function readBody(req: IncomingMessage, res: ServerResponse, read: (buf: Buffer) => void): void {
  // runInAsyncScope rather than AsyncResource.bind: bind builds a deprecation getter on every call.
  const scope = new AsyncResource('FastPathBody');
  const done = (buf: Buffer) => scope.runInAsyncScope(read, null, buf);
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

/** body-parser's strict JSON parse of a UTF-8 body (BOM stripped, empty body `{}`), failing with its error's `type` and `body`. */
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

/** What the exception filter writes: the standard error body with the request id, as Express's res.json sends it. */
function sendError(res: ServerResponse, err: unknown, log: (errorId: string, err: unknown) => void): void {
  const body = toErrorBody(err, log);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = res.getHeader('X-Request-Id');
  if (typeof requestId === 'string' && body.requestId === undefined) body.requestId = requestId;
  sendJson(res, body.statusCode, body);
}

/** A JSON answer as Express's res.json sends it (type, length, weak ETag). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.setHeader('ETag', weakEtag(json));
  res.end(json);
}

/**
 * Express's default (weak) ETag of a response body, made by the module Express itself uses, for
 * answers written before Express that must carry the same one.
 */
export function weakEtag(body: string | Buffer): string {
  return etag(body, { weak: true });
}

/** HTTP_BODY_LIMIT (`100kb`, `1mb`, bytes) as bytes; undefined when it cannot be read (the fast path then stays off). */
export function byteLimit(limit: unknown): number | undefined {
  if (typeof limit === 'number') return limit;
  const m = typeof limit === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit) : null;
  if (!m) return undefined;
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.floor(Number(m[1]) * unit);
}

/** The access line pino-http writes for requests through Express (`METHOD /path STATUS Nms`; warn from 500 on). */
function accessLog(service: string, path: string, requestId: string, res: ServerResponse, started: bigint): void {
  const log = PinoLogger.root;
  const status = res.statusCode;
  const level = status >= 500 ? 'warn' : 'info';
  if (!log?.isLevelEnabled(level)) return;
  const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  log[level]({ service, requestId, method: 'POST', path, status, ms }, `POST ${path} ${status} ${ms}ms`);
}
