import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BACKEND_SERVICES, LOOPBACK } from '../../apps/standalone/src/standalone';
import { gatewayDefinition } from '@flowplane/gateway';
import { createEventBus, type EventBus } from '@flowplane/platform/bus';
import { type RunningService, startService } from '@flowplane/platform/service';
import { call, testEnv, token, until } from '../support/http';

/**
 * A pass-through to the deployments service that answers 503 until opened: flow-runtime's start-up
 * read of the deployments (which binds their routes and subscriptions) cannot finish before.
 */
function gate(target: () => string): { server: Server; open(): void; listen(): Promise<string> } {
  let opened = false;
  const server = createServer((req, res) => {
    if (!opened) {
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: 503, error: 'Service Unavailable', code: 'HELD', message: 'held by the test' }));
      return;
    }
    const url = new URL(req.url ?? '/', target());
    const upstream = request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return {
    server,
    open: () => (opened = true),
    listen: () => new Promise((r) => server.listen(0, LOOPBACK, () => r(`http://${LOOPBACK}:${(server.address() as AddressInfo).port}`))),
  };
}

/** The platform as standalone runs it, but flow-runtime reaches the deployments service through a gate. */
describe('a service is ready only once its start-up seeding is done', () => {
  const held = gate(() => serviceUrls.deployments);
  const serviceUrls: Record<string, string> = {};
  const services: RunningService[] = [];
  let bus: EventBus;
  let gateway: RunningService;
  let api: string;

  beforeAll(async () => {
    const gateUrl = await held.listen();
    const env = testEnv({ GATEWAY_RATE_LIMIT: '0', HOST: LOOPBACK });
    bus = createEventBus({ bus: 'memory', maxAttempts: 5, source: '/seeding-test' });
    const upstreamEnv: Record<string, string> = {};
    for (const def of BACKEND_SERVICES) {
      // flow-runtime's view of the URLs: the real ones, except deployments behind the gate.
      const urls = def.name === 'flow-runtime' ? new Proxy(serviceUrls, { get: (t, k: string) => (k === 'deployments' ? gateUrl : t[k]) }) : serviceUrls;
      const svc = await startService(def, { bus, serviceUrls: urls, env });
      services.push(svc);
      serviceUrls[def.name] = svc.url;
      upstreamEnv[`${def.name.replace(/-/g, '_').toUpperCase()}_URL`] = svc.url;
    }
    gateway = await startService(gatewayDefinition, { bus, serviceUrls, env: { ...env, ...upstreamEnv } });
    api = `${gateway.url}/api/v1`;
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await Promise.allSettled(services.map((s) => s.close()));
    await bus?.close();
    held.server.close();
  });

  it('health is 503 naming flow-runtime as seeding until its start-up read is done, then 200', async () => {
    const admin = await token('alice', ['admin:access']);
    const before = await call(`${api}/health`);
    expect(before.status).toBe(503);
    expect(before.body).toMatchObject({
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'NOT_READY',
      message: expect.stringContaining('flow-runtime (seeding)'),
      requestId: before.headers.get('x-request-id'),
      errorId: expect.any(String),
      failing: ['flow-runtime'],
      services: { 'flow-runtime': { status: 'down', reason: 'seeding' }, deployments: { status: 'up' } },
    });
    // The service's own probe says why, in the standard error body.
    const probe = await call(`${api}/flow-runtime/readyz`);
    expect(probe.status).toBe(503);
    expect(probe.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable', code: 'NOT_READY', message: 'not ready: seeding', requestId: probe.headers.get('x-request-id'), errorId: expect.any(String) });
    expect(probe.body.failing.seeding).toMatchObject({ status: 'down', message: 'seeding' });
    expect([...probe.body.failing.seeding.tasks].sort()).toEqual(['deployments', 'flow deployments']);
    expect(probe.body.info.store).toEqual({ status: 'up' });

    held.open();
    const after = await until(() => call(`${api}/health`), (r) => r.status === 200, 15_000, 100);
    expect(after.status).toBe(200);
    expect(after.body.services['flow-runtime'].checks.seeding).toEqual({ status: 'up' });
    const templates = await call(`${api}/flows/templates`, { bearer: admin });
    expect(templates.status).toBe(200);
    expect(JSON.stringify(templates.body)).toContain('"id"');
  }, 30_000);
});
