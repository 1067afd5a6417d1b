import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Header carrying the request id in and out of every service. */
export const REQUEST_ID_HEADER = 'x-request-id';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();
const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id of the request being handled, if any (forwarded on internal calls). */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Reads a caller's request id when it is well-formed, otherwise makes a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const id = Array.isArray(given) ? given[0] : given;
  return id && VALID_ID.test(id) ? id : randomUUID();
}

/** Express middleware: assigns the request id, echoes it in the response and scopes it for async work. */
export function requestIdMiddleware(req: IncomingMessage & { id?: string }, res: ServerResponse, next: () => void): void {
  const id = req.id ?? requestIdOf(req);
  req.id = id;
  req.headers[REQUEST_ID_HEADER] = id;
  res.setHeader('X-Request-Id', id);
  storage.run({ requestId: id }, next);
}
