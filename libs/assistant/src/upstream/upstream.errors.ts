import { ServiceCallError } from '@flowplane/contracts';
import { DomainException } from '@flowplane/platform/http';
import { UpstreamError } from './upstream.clients';

/**
 * What a failed call to another service becomes: its 4xx refusals keep their status and code (a
 * deployment that does not exist is the caller's problem), everything else is a 503 naming the
 * service, never its stack.
 */
export function upstreamFailure(e: unknown, service: string): DomainException {
  if (e instanceof DomainException) return e;
  const status = (e instanceof ServiceCallError ? e.status : e instanceof UpstreamError ? e.status : undefined) ?? 503;
  const body = (e instanceof ServiceCallError ? e.body : e instanceof UpstreamError ? e.body : undefined) as { code?: unknown; message?: unknown } | undefined;
  if (status >= 400 && status < 500 && status !== 401 && status !== 403) {
    // The refusal's own fields (`deploymentId`, `details`, ...) stay: they say what to change.
    const { statusCode: _s, error: _e, message: _m, code: _c, requestId: _r, errorId: _i, ...fields } = (body ?? {}) as Record<string, unknown>;
    void [_s, _e, _m, _c, _r, _i];
    return new DomainException(typeof body?.code === 'string' ? body.code : 'UPSTREAM_REFUSED', status === 404 ? 503 : status, typeof body?.message === 'string' ? body.message : `${service} refused the call`, status === 404 ? {} : fields);
  }
  return new DomainException('UPSTREAM_UNAVAILABLE', 503, `${service} is unavailable; try again shortly`);
}
