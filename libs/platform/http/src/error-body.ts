import { STATUS_CODES } from 'node:http';
import { currentRequestId } from './request-context';

/**
 * The JSON error body of every answer that is not a success (ARCHITECTURE §5): the status, its
 * reason phrase, a stable upper-case code, a message and the request id (equal to X-Request-Id);
 * `details` on validation failures, `errorId` on 5xx; spec-defined cases add their own fields.
 */
export interface ErrorBody {
  statusCode: number;
  error: string;
  code: string;
  message: string;
  requestId?: string;
  errorId?: string;
  details?: unknown;
  [extra: string]: unknown;
}

/** A code callers may rely on: upper snake case. */
export const ERROR_CODE_PATTERN = /^[A-Z][A-Z0-9_]+$/;

/** `Unsupported Media Type` -> `UNSUPPORTED_MEDIA_TYPE`: the code of a status when nothing more specific is known. */
export function codeForStatus(status: number): string {
  return (STATUS_CODES[status] ?? 'ERROR').toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_|_$/g, '');
}

/**
 * Builds an error body with the standard reason phrase for the status. `code` defaults to the one
 * of the status and `requestId` to the id of the request being handled, when there is one.
 */
export function errorBody(statusCode: number, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  const { code, requestId, ...rest } = extra;
  const id = typeof requestId === 'string' ? requestId : currentRequestId();
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    code: typeof code === 'string' && code ? code : codeForStatus(statusCode),
    message,
    ...rest,
    ...(id ? { requestId: id } : {}),
  };
}
