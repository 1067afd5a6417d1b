import { FlowplaneApiError, isFlowplaneErrorBody, NetworkError, parseRetryAfter, StreamError } from './errors';

describe('client errors', () => {
  it('reads the standard error body, keeps extra fields, and takes Retry-After and X-Request-Id from the response', async () => {
    const body = { statusCode: 409, error: 'Conflict', code: 'ROUTE_CONFLICT', message: 'taken', requestId: 'r-1', conflicting_deployment_id: 'd1' };
    const res = new Response(JSON.stringify(body), { status: 409, headers: { 'x-request-id': 'r-1', 'retry-after': '3' } });
    const e = await FlowplaneApiError.fromResponse(res);
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ name: 'FlowplaneApiError', status: 409, statusCode: 409, error: 'Conflict', code: 'ROUTE_CONFLICT', message: 'taken', requestId: 'r-1', retryAfter: 3 });
    expect((e.body as Record<string, unknown>).conflicting_deployment_id).toBe('d1');
    expect(e.toJSON()).toMatchObject({ status: 409, code: 'ROUTE_CONFLICT', requestId: 'r-1' });
  });

  it('a 5xx carries errorId; an empty or foreign body still gives status, code HTTP_<status> and the header request id', async () => {
    const e500 = await FlowplaneApiError.fromResponse(new Response(JSON.stringify({ statusCode: 500, error: 'Internal Server Error', code: 'INTERNAL', message: 'failed', requestId: 'r', errorId: 'e-9' }), { status: 500 }));
    expect(e500.errorId).toBe('e-9');
    const empty = await FlowplaneApiError.fromResponse(new Response(null, { status: 503, statusText: 'Service Unavailable', headers: { 'x-request-id': 'r-2' } }));
    expect(empty).toMatchObject({ status: 503, code: 'HTTP_503', error: 'Service Unavailable', message: '503 Service Unavailable', requestId: 'r-2' });
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('12')).toBe(12);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('recognises error bodies and names the other errors', () => {
    expect(isFlowplaneErrorBody({ statusCode: 400, code: 'X', message: 'm' })).toBe(true);
    expect(isFlowplaneErrorBody('<html>')).toBe(false);
    expect(new NetworkError('http://x', new Error('ECONNREFUSED'))).toMatchObject({ name: 'NetworkError', code: 'NETWORK_ERROR', message: 'could not reach http://x: ECONNREFUSED' });
    expect(new StreamError('RESUME_FAILED', 'gave up', { attempts: 5, lastEventId: '4' })).toMatchObject({ name: 'StreamError', code: 'RESUME_FAILED', attempts: 5, lastEventId: '4' });
  });
});
