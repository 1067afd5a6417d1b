import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth';

/**
 * A request refused by a guard in front of Nest (its body or its path). `expose` and `status` are
 * what body-parser and http-errors read to keep the status; `code` goes into the error body.
 */
export class RequestRefusedError extends Error {
  readonly expose = true;
  readonly statusCode: number;
  readonly type = 'entity.verify.failed';

  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'RequestRefusedError';
    this.statusCode = status;
  }
}

/**
 * body-parser `verify` hook for JSON bodies: runs on the raw bytes before JSON.parse, so a body
 * that would overflow the stack of the validators (or of anything walking it later, such as
 * JSON.stringify when run events are stored) never becomes an object. Also refuses bytes that are
 * not UTF-8: the decoder would otherwise replace them silently with U+FFFD and store altered text.
 * JSON between systems is UTF-8 (RFC 8259 §8.1), so other charsets are refused rather than decoded
 * a second time here for the depth scan.
 */
export function jsonBodyVerifier(maxDepth: number = MAX_JSON_DEPTH) {
  return (_req: IncomingMessage, _res: ServerResponse, buf: Buffer, encoding: string | null): void => {
    if (encoding && !/^utf-?8$/i.test(encoding)) {
      throw new RequestRefusedError('UNSUPPORTED_CHARSET', `JSON bodies must be UTF-8, not ${encoding}`, 415);
    }
    if (!isUtf8(buf)) throw new RequestRefusedError('INVALID_UTF8', 'request body is not valid UTF-8');
    if (jsonDepthExceeds(buf, maxDepth)) {
      throw new RequestRefusedError('JSON_TOO_DEEP', `request body nests objects or arrays deeper than ${maxDepth} levels`);
    }
  };
}

/**
 * Refuses a path with an invalid percent-encoding (`%ff`, `%E0%A4%A`) before routing: Express would
 * only notice while decoding a route parameter, and Nest turns that into a 400 without a code.
 */
export function pathEncodingGuard(req: IncomingMessage, _res: ServerResponse, next: (err?: unknown) => void): void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path.includes('%')) {
    try {
      decodeURIComponent(path);
    } catch {
      next(new RequestRefusedError('INVALID_PATH_ENCODING', 'the request path has an invalid percent-encoding'));
      return;
    }
  }
  next();
}
