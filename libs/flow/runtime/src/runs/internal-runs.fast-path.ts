import { type INestApplication, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PinoLogger } from 'nestjs-pino';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessDeclarationOf, enforce, type Principal, TokenVerifier } from '@flowplane/platform/auth';
import { HTTP_METRICS, type HttpMetricsMiddleware } from '@flowplane/platform/health';
import { createValidationPipe, defaultLocaleFromEnv, frameAncestorsFromEnv, jsonBodyVerifier, requestIdMiddleware, requestLocaleMiddleware, securityHeaders, toErrorBody } from '@flowplane/platform/http';
import type { ServiceContext } from '@flowplane/platform/service';
import { eventFilter, InternalRunsController, InternalStartRunDto, openRunStream } from './runs.controller';
import { RunsService } from './runs.service';

/** The route as Express routes it (the metrics label and the access line of the Nest route). */
export const INTERNAL_RUNS_PATH = '/internal/runs';

const BEARER = /^Bearer\s+(\S+)$/i;
const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const FIELDS = new Set(['flowId', 'versionId', 'input', 'meta', 'startedBy', 'events']);

/**
 * `POST /internal/runs` in front of Express: the assistant starts one run per chat message here,
 * so each chat would otherwise cross the whole request stack twice where a direct run crosses it
 * once. It answers what the Nest route answers, with the same platform middleware run on the raw
 * request (request id and its async scope, request locale, security headers, request metrics)
 * and the same access line, without the router, guard, pipe and interceptor chain:
 *
 * - it takes only a request it can judge before reading it: this exact path with no query, a JSON
 *   body of a declared length within HTTP_BODY_LIMIT, no content encoding, and a bearer token the
 *   verifier has already verified (cached) that satisfies the route's declared permission. Every
 *   other request, among them every refused token (401, 403), goes to the Nest route;
 * - a body it has read it judges as Express would: the JSON guard (UTF-8, depth), body-parser's
 *   strict parse, and the platform's validation pipe for anything its own check of the DTO does
 *   not pass at once, with the same error bodies.
 */
export function internalRunsFastPath(app: INestApplication, ctx: ServiceContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const verifier = app.get(TokenVerifier);
  const runs = app.get(RunsService);
  const metrics = app.get<HttpMetricsMiddleware>(HTTP_METRICS);
  const decl = accessDeclarationOf(app.get(Reflector), InternalRunsController.prototype.start, InternalRunsController);
  const limit = byteLimit(ctx.config.HTTP_BODY_LIMIT);
  const locale = requestLocaleMiddleware(defaultLocaleFromEnv(ctx.env));
  const security = securityHeaders(frameAncestorsFromEnv(ctx.env));
  const verifyJson = jsonBodyVerifier();
  const pipe = createValidationPipe();
  const log = new Logger('Exceptions');
  // The route must keep its declaration; without one the Nest route refuses everything itself.
  if (!decl?.internal || limit === undefined) return () => false;

  const admitted = (req: IncomingMessage): Principal | undefined => {
    if (req.method !== 'POST' || req.url !== INTERNAL_RUNS_PATH) return undefined;
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
    return principal;
  };

  return (req, res) => {
    const who = admitted(req);
    if (!who) return false;
    const started = process.hrtime.bigint();
    (res as ServerResponse & { locals?: object }).locals = { metricsRoute: INTERNAL_RUNS_PATH };
    requestIdMiddleware(req as IncomingMessage & { id?: string }, res, () =>
      locale(req, res, () =>
        security(req as never, res as never, () =>
          metrics(req as never, res as never, () => {
            res.once('close', () => accessLog(ctx.name, String(req.id), res, started));
            readBody(req, res, (buf) => void handle(buf, who, req, res));
          }),
        ),
      ),
    );
    return true;
  };

  async function handle(buf: Buffer, who: Principal, req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      verifyJson(req, res, buf, 'utf-8');
      const dto = await validate(parseJson(buf));
      const run = await runs.start(dto.flowId, { input: dto.input, meta: dto.meta, versionId: dto.versionId }, dto.startedBy ?? who.sub);
      res.setHeader('X-Run-Id', run.runId);
      res.setHeader('X-Version-Id', run.versionId);
      res.setHeader('X-Version-Hash', run.versionHash);
      const sse = openRunStream(res);
      const stop = await runs.follow(run.runId, 0, eventFilter(dto.events, (e) => sse.send(e)), () => sse.end());
      res.once('close', () => {
        sse.detach();
        stop();
      });
    } catch (err) {
      sendError(res, err, (errorId, e) => log.error({ errorId, err: e, method: req.method, url: req.url }, `request failed: ${(e as Error)?.message ?? String(e)}`));
    }
  }

  /** The body as the validation pipe would hand it to the route: checked at once when plainly valid. */
  async function validate(body: unknown): Promise<InternalStartRunDto> {
    if (plainlyValid(body)) return body as InternalStartRunDto;
    return (await pipe.transform(body, { type: 'body', metatype: InternalStartRunDto, data: undefined })) as InternalStartRunDto;
  }
}

/**
 * True when InternalStartRunDto certainly accepts `body` (only its fields, each of its type and
 * within its length in UTF-16 units, never more than class-validator counts); anything else goes
 * through the validation pipe, which gives the authoritative answer and its error body.
 */
export function plainlyValid(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!FIELDS.has(k)) return false;
  if (!isString(b.flowId, 200)) return false;
  if (b.versionId != null && !isString(b.versionId, 250)) return false;
  if (b.meta != null && (typeof b.meta !== 'object' || Array.isArray(b.meta))) return false;
  if (b.startedBy != null && !isString(b.startedBy, 300)) return false;
  if (b.events != null) {
    if (!Array.isArray(b.events) || b.events.length > 50) return false;
    for (const e of b.events) if (!isString(e, 100)) return false;
  }
  return true;
}

function isString(v: unknown, max: number): boolean {
  return typeof v === 'string' && v.length <= max;
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

/** What the exception filter writes: the standard error body with the request id, as Express's res.json sends it. */
function sendError(res: ServerResponse, err: unknown, log: (errorId: string, err: unknown) => void): void {
  const body = toErrorBody(err, log);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = res.getHeader('X-Request-Id');
  if (typeof requestId === 'string' && body.requestId === undefined) body.requestId = requestId;
  const json = JSON.stringify(body);
  res.statusCode = body.statusCode;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.setHeader('ETag', weakEtag(json));
  res.end(json);
}

/** Express's default (weak) ETag of a response body. */
function weakEtag(body: string): string {
  const hash = createHash('sha1').update(body, 'utf8').digest('base64').substring(0, 27);
  return `W/"${Buffer.byteLength(body).toString(16)}-${hash}"`;
}

/** HTTP_BODY_LIMIT (`100kb`, `1mb`, bytes) as bytes; undefined when it cannot be read (the fast path then stays off). */
export function byteLimit(limit: unknown): number | undefined {
  if (typeof limit === 'number') return limit;
  const m = typeof limit === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit) : null;
  if (!m) return undefined;
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.floor(Number(m[1]) * unit);
}

/** The access line pino-http writes for requests through Express (`METHOD /path STATUS Nms`). */
function accessLog(service: string, requestId: string, res: ServerResponse, started: bigint): void {
  const log = PinoLogger.root;
  const status = res.statusCode;
  const level = status >= 500 ? 'warn' : 'info';
  if (!log?.isLevelEnabled(level)) return;
  const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  log[level]({ service, requestId, method: 'POST', path: INTERNAL_RUNS_PATH, status, ms }, `POST ${INTERNAL_RUNS_PATH} ${status} ${ms}ms`);
}
