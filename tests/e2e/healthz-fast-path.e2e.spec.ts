import { type RunningService, startService } from '@flowplane/platform/service';
import { profilesDefinition } from '@flowplane/profiles';
import { metricsAuth, testEnv } from '../support/http';
import { comparable, requestCount, send } from '../support/fast-path';

/**
 * Every service answers a plain `GET /healthz` before Express. What it answers must be what the
 * Nest route answers: a query string sends the same probe through Express, so `/healthz` and
 * `/healthz?via=express` compare both paths.
 */
describe('a service answers GET /healthz in front of Express as the Nest route does', () => {
  let svc: RunningService;
  let base: string;

  beforeAll(async () => {
    svc = await startService(profilesDefinition, { env: testEnv({ PORT: '0', STORE: 'memory', BUS: 'memory' }) });
    base = svc.url;
  });
  afterAll(() => svc?.close());

  it('answers with the status, headers and body of the Nest route, echoing a given request id', async () => {
    const slow = await send('GET', `${base}/healthz?via=express`, undefined, undefined, { 'x-request-id': 'req-healthz-1' });
    const fast = await send('GET', `${base}/healthz`, undefined, undefined, { 'x-request-id': 'req-healthz-1' });
    expect(comparable(fast)).toEqual(comparable(slow));
    expect(fast.status).toBe(200);
    expect(JSON.parse(fast.text)).toEqual({ status: 'ok' });
    expect(fast.headers['x-request-id']).toBe('req-healthz-1');
    expect(fast.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers a plain probe without Express, and one with a query string through it', async () => {
    const express = svc.app.getHttpAdapter().getInstance() as { handle: (...args: unknown[]) => unknown };
    const handle = jest.spyOn(express, 'handle');
    try {
      await send('GET', `${base}/healthz`, undefined, undefined);
      expect(handle).not.toHaveBeenCalled();
      await send('GET', `${base}/healthz?via=express`, undefined, undefined);
      expect(handle).toHaveBeenCalledTimes(1);
    } finally {
      handle.mockRestore();
    }
  });

  it('makes a request id when none (or a malformed one) is given', async () => {
    const none = await send('GET', `${base}/healthz`, undefined, undefined);
    const bad = await send('GET', `${base}/healthz`, undefined, undefined, { 'x-request-id': 'not ok!' });
    for (const a of [none, bad]) expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves conditional requests and other methods to Express (304, 404 as before)', async () => {
    const first = await send('GET', `${base}/healthz`, undefined, undefined);
    const conditional = await send('GET', `${base}/healthz`, undefined, undefined, { 'if-none-match': String(first.headers.etag) });
    expect(conditional.status).toBe(304);
    const post = await send('POST', `${base}/healthz`, undefined, '{}', { 'x-request-id': 'req-healthz-2' });
    expect(post.status).toBe(404);
    expect(JSON.parse(post.text)).toMatchObject({ statusCode: 404, requestId: 'req-healthz-2' });
  });

  it('counts its answers in the request metrics under /healthz, as Express does', async () => {
    const auth = await metricsAuth();
    const before = await requestCount(base, auth, '/healthz', '200', 'GET');
    await send('GET', `${base}/healthz`, undefined, undefined);
    await send('GET', `${base}/healthz?via=express`, undefined, undefined);
    expect(await requestCount(base, auth, '/healthz', '200', 'GET')).toBe(before + 2);
  });
});
