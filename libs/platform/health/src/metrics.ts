import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { RequirePerms } from '@flowplane/platform/auth';
import { errorBody } from '@flowplane/platform/http';

/** Nest token of the service's Prometheus registry. */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');
/** Nest token of the HTTP metrics middleware (for request paths that bypass Express, like the gateway's proxy). */
export const HTTP_METRICS = Symbol('HTTP_METRICS');

/** Records one request in the HTTP metrics; `res.locals.metricsRoute` labels requests without an Express route. */
export type HttpMetricsMiddleware = (req: Request, res: Response, next: NextFunction) => void;

/** A Prometheus registry with the process default metrics and the HTTP request metrics, labelled by service. */
export function createMetricsRegistry(service: string): { registry: Registry; httpMiddleware: HttpMetricsMiddleware } {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by method, route and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const httpMiddleware = (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      // Label by route template, never the raw URL, so cardinality stays bounded.
      const route = req.route?.path ? `${req.baseUrl ?? ''}${String(req.route.path)}` : (res.locals?.metricsRoute as string | undefined) ?? 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      requests.inc(labels);
      latency.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
  return { registry, httpMiddleware };
}

/** Permission that lets a token read `/metrics` on the service port. */
export const METRICS_READ_PERM = 'metrics:read';

/**
 * `GET /metrics` in the Prometheus text format, on the service port. Metrics describe traffic,
 * routes and internals, so they need a token with `metrics:read` (or a superuser); a scraper
 * without one uses the separate listener of `METRICS_PORT` instead.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  @Get()
  @RequirePerms(METRICS_READ_PERM)
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * A listener serving only `GET /metrics` (no token: it is meant for a private port that only the
 * scraper reaches). Everything else is a JSON 404.
 */
export function createMetricsServer(registry: Registry): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        () => sendPlainJson(res, 500, errorBody(500, 'metrics could not be collected', { code: 'METRICS_FAILED' })),
      );
      return;
    }
    sendPlainJson(res, 404, errorBody(404, 'this port serves only GET /metrics', { code: 'NOT_FOUND' }));
  });
}

function sendPlainJson(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}
