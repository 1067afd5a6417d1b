import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { randomUUID } from 'node:crypto';
import { DomainException, PORT_ERROR_STATUS } from './domain.exception';
import { codeForStatus, ERROR_CODE_PATTERN, type ErrorBody, errorBody } from './error-body';

/** ` at line L, column C` of the first syntax error of a JSON text, so a caller can find it. */
function jsonErrorPlace(body: unknown): string {
  if (typeof body !== 'string') return '';
  const errors: ParseError[] = [];
  parseJsonc(body, errors, { disallowComments: true, allowTrailingComma: false });
  if (!errors.length) return '';
  const lines = body.slice(0, errors[0].offset).split('\n');
  return ` at line ${lines.length}, column ${lines[lines.length - 1].length + 1}`;
}

/** Maps any thrown value to a status and a caller-safe JSON body. Never includes a stack. */
export function toErrorBody(err: unknown, log?: (errorId: string, err: unknown) => void): ErrorBody {
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const res = err.getResponse();
    if (typeof res === 'object' && res !== null) {
      const r = res as Record<string, unknown>;
      const message = Array.isArray(r.message) ? r.message.join('; ') : String(r.message ?? err.message);
      const { statusCode: _s, error: _e, message: _m, code, ...rest } = r;
      return withErrorId(errorBody(status, message, { code: httpExceptionCode(status, message, code, rest.details), ...rest }), status, err, log);
    }
    return withErrorId(errorBody(status, String(res), { code: httpExceptionCode(status, String(res)) }), status, err, log);
  }
  if (err instanceof DomainException) return withErrorId(errorBody(err.status, err.message, { code: err.code, ...err.body }), err.status, err, log);
  const e = err as { code?: string; type?: string; status?: number; message?: string; expose?: boolean };
  // body-parser errors (malformed JSON, body too large, refused by the JSON guard) carry `type` and an exposable status.
  if (e?.type === 'entity.too.large') return errorBody(413, 'request body is larger than the limit', { code: 'PAYLOAD_TOO_LARGE' });
  if (e?.type === 'entity.parse.failed') return errorBody(400, `request body is not valid JSON${jsonErrorPlace((err as { body?: unknown }).body)}`, { code: 'INVALID_JSON' });
  // Express cannot decode a route parameter such as `%ff`.
  if (err instanceof URIError && e.status === 400) return errorBody(400, 'the request path has an invalid percent-encoding', { code: 'INVALID_PATH_ENCODING' });
  if (e?.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return errorBody(e.status, e.message ?? 'bad request', { code: stableCode(e.code) ?? EXPOSED_TYPE_CODES[e.type ?? ''] ?? codeForStatus(e.status) });
  }
  const portStatus = e?.code ? PORT_ERROR_STATUS[e.code] : undefined;
  if (portStatus) return withErrorId(errorBody(portStatus, portStatus >= 500 ? 'a dependency is unavailable, retry later' : (e.message ?? 'bad request'), { code: e.code }), portStatus, err, log);
  return withErrorId(errorBody(500, 'internal error', { code: 'INTERNAL_ERROR' }), 500, err, log);
}

/** Nest's answer to a path no controller serves (`Cannot GET /x`). */
const NEST_NO_ROUTE = /^Cannot [A-Z]+ \//;

/**
 * The code of an HttpException: its own when it names one (normalised to upper snake case),
 * VALIDATION_FAILED for a 400 that lists details, ROUTE_NOT_FOUND for Nest's unknown-route 404,
 * else the one of the status (NOT_FOUND, UNAUTHORIZED, FORBIDDEN, ...).
 */
function httpExceptionCode(status: number, message: string, code?: unknown, details?: unknown): string {
  if (typeof code === 'string' && code) return ERROR_CODE_PATTERN.test(code) ? code : codeForStatus(status);
  if (status === 400 && details !== undefined) return 'VALIDATION_FAILED';
  if (status === 404 && NEST_NO_ROUTE.test(message)) return 'ROUTE_NOT_FOUND';
  return codeForStatus(status);
}

/** Codes of the body-parser errors that carry no code of their own. */
const EXPOSED_TYPE_CODES: Record<string, string> = {
  'charset.unsupported': 'UNSUPPORTED_CHARSET',
  'encoding.unsupported': 'UNSUPPORTED_CONTENT_ENCODING',
  'request.aborted': 'REQUEST_ABORTED',
  'request.size.invalid': 'BODY_SIZE_MISMATCH',
  'stream.encoding.set': 'BAD_REQUEST',
};

/** An upper-case identifier is a code meant for callers; anything else (`ECONNRESET`, lower case) is not. */
function stableCode(code: unknown): string | undefined {
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{2,63}$/.test(code) && !/^E[A-Z]+$/.test(code) ? code : undefined;
}

function withErrorId(body: ErrorBody, status: number, err: unknown, log?: (errorId: string, err: unknown) => void): ErrorBody {
  if (status < 500) return body;
  const errorId = randomUUID();
  log?.(errorId, err);
  return { ...body, errorId };
}

/** Global exception filter: one JSON error shape for every service, `errorId` on 5xx (logged with the stack). */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    sendError(res, exception, (errorId, err) =>
      this.logger.error({ errorId, err, method: req.method, url: req.originalUrl }, `request failed: ${(err as Error)?.message ?? String(err)}`),
    );
  }
}

/** Writes the error body for `err` on a response (used by the filter and by the Express error handler). */
export function sendError(res: Response, err: unknown, log?: (errorId: string, err: unknown) => void): void {
  const body = toErrorBody(err, log);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = res.getHeader('X-Request-Id');
  if (typeof requestId === 'string' && body.requestId === undefined) body.requestId = requestId;
  res.status(body.statusCode).json(body);
}

/** Express error middleware for errors raised outside Nest's pipeline (body parsing, raw middleware). */
export function expressErrorHandler(logger = new Logger('Exceptions')) {
  return (err: unknown, req: Request, res: Response, _next: (e?: unknown) => void): void => {
    sendError(res, err, (errorId, e) => logger.error({ errorId, err: e, method: req.method, url: req.originalUrl }, 'request failed'));
  };
}

/** Last-resort Express handler for a request nothing answered: the JSON 404 every unknown route gets. */
export function routeNotFoundHandler() {
  return (req: Request, res: Response): void => {
    const requestId = res.getHeader('X-Request-Id');
    res.status(404).json(errorBody(404, `no route for ${req.method} ${req.path}`, { code: 'ROUTE_NOT_FOUND', ...(typeof requestId === 'string' ? { requestId } : {}) }));
  };
}
