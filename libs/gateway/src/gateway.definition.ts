import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import cors from 'cors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTP_METRICS, type HttpMetricsMiddleware } from '@flowplane/platform/health';
import type { ServiceConfig, ServiceDefinition } from '@flowplane/platform/service';
import { completeOperations } from '@flowplane/platform/service';
import { listRoutes } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { type GatewayEnv, upstreamUrls } from './gateway.env';
import { GatewayEnv as GatewayEnvClass } from './gateway.env';
import { GatewayModule } from './gateway.module';
import { GatewayProxy, parseByteSize } from './gateway-proxy';
import { EdgeCache } from './edge-cache';
import { OpenApiAggregator } from './openapi-aggregator';
import { applyServerTimeouts } from './server-timeouts';
import { topLevelMounts } from './route-table';
import { defaultWidgetDir, WidgetAssets, widgetCorsOrigin } from './widget-assets';
import { ConsoleAssets, consoleConfig, defaultConsoleDir } from './console-assets';

const proxies = new WeakMap<object, GatewayProxy>();

/** The gateway: routes /api/v1 by prefix to the services, proxies /ws/* to the hub, aggregates health and docs. */
/**
 * Response headers a browser app on an allowed origin may read: besides the CORS-safelisted ones,
 * the request id, the rate limit's wait, a run's id and variant (to resume or cancel it), and the
 * compile diagnostics summary.
 */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'X-Run-Id', 'X-Variant', 'X-Diagnostics', 'X-Diagnostics-Errors', 'X-Diagnostics-Warnings', 'X-Assistant-Session-Id'];

/**
 * Request headers a browser app on an allowed origin may send (an explicit list rather than
 * reflecting whatever a preflight asks for): the bearer token, JSON bodies, content negotiation,
 * a caller's request id and idempotency key, the session id that flow routes bucket variants by,
 * and for an embedded chat widget the assistant session id and `Last-Event-ID` to resume a stream.
 */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'Accept-Language', 'X-Request-Id', 'X-Session-Id', 'Idempotency-Key', 'Last-Event-ID', 'X-Assistant-Session-Id'];

export const gatewayDefinition: ServiceDefinition = {
  name: 'gateway',
  title: 'Flowplane gateway',
  description: 'Entry point of the platform: routing, CORS, body and rate limits, request ids, aggregated health and API documents.',
  defaultPort: 8080,
  uses: { bus: true },
  env: [GatewayEnvClass],
  parseJsonBody: false,
  module: () => GatewayModule,
  configure: (app, ctx) => {
    const c = ctx.config as ServiceConfig & GatewayEnv;
    const origins = c.GATEWAY_CORS_ORIGINS;
    // Bearer tokens, not cookies: no credentialed CORS, so `*` cannot expose a user's session.
    const corsOptions = { origin: origins.includes('*') ? '*' : origins, exposedHeaders: CORS_EXPOSED_HEADERS, allowedHeaders: CORS_ALLOWED_HEADERS, maxAge: 600 };
    if (origins.length) app.enableCors(corsOptions);
    type Cors = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
    const widgetOrigin = widgetCorsOrigin(c.WIDGET_ALLOWED_ORIGINS, origins);
    const widgetCors = widgetOrigin ? (cors({ ...corsOptions, origin: widgetOrigin }) as Cors) : undefined;
    const metrics = app.get<HttpMetricsMiddleware>(HTTP_METRICS);
    const proxy = new GatewayProxy({
      observe: (req, res) => metrics(req as never, res as never, () => undefined),
      cors: origins.length ? (cors(corsOptions) as Cors) : undefined,
      widgetCors,
      upstreams: upstreamUrls(c),
      timeoutMs: c.GATEWAY_UPSTREAM_TIMEOUT_MS,
      bodyLimitBytes: parseByteSize(c.HTTP_BODY_LIMIT),
      rateLimit: c.GATEWAY_RATE_LIMIT,
      trustProxy: c.GATEWAY_TRUST_PROXY,
      mounts: topLevelMounts(c.WS_MOUNT_PATH),
      frameAncestors: c.GATEWAY_FRAME_ANCESTORS,
      cache: app.get(EdgeCache),
      limits: {
        connections: c.GATEWAY_UPSTREAM_CONNECTIONS,
        reserve: Math.min(c.GATEWAY_UPSTREAM_RESERVE, c.GATEWAY_UPSTREAM_CONNECTIONS - 1),
        streamConnections: c.GATEWAY_STREAM_CONNECTIONS,
        streamsPerCaller: c.GATEWAY_MAX_STREAMS_PER_CALLER,
        streamsPerClient: c.GATEWAY_MAX_STREAMS_PER_CLIENT,
        pendingPerClient: c.GATEWAY_MAX_PENDING_PER_CLIENT,
        bodyIdleTimeoutMs: c.GATEWAY_BODY_IDLE_TIMEOUT_MS,
        requestTimeoutMs: c.GATEWAY_REQUEST_TIMEOUT_MS,
        maxJsonDepth: c.GATEWAY_MAX_JSON_DEPTH,
      },
    });
    proxies.set(app, proxy);
    app.use(proxy.middleware());
    app.use(new WidgetAssets(defaultWidgetDir(), c.WIDGET_ALLOWED_ORIGINS).middleware());
    app.use(new ConsoleAssets(defaultConsoleDir(), consoleConfig(c)).middleware());
    const aggregator = app.get(OpenApiAggregator);
    const operationId = (controller: string, method: string) => `gateway_${controller.replace(/Controller$/, '')}_${method}`;
    const own = () =>
      completeOperations(
        SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('Flowplane API').setVersion('0.1.0').addBearerAuth().build(), { operationIdFactory: operationId, extraModels: [ErrorBodyDto] }),
        listRoutes(app),
        operationId,
      );
    aggregator.setBase(own);
    // Swagger UI loads the merged document from /api/v1/openapi.json.
    SwaggerModule.setup('api/docs', app, own, { useGlobalPrefix: false, swaggerOptions: { url: '/api/v1/openapi.json' }, jsonDocumentUrl: 'api/docs/gateway.json', yamlDocumentUrl: 'api/docs/gateway.yaml' });
  },
  interceptRequest: (app) => {
    const proxy = proxies.get(app)!;
    return (req, res) => proxy.handle(req, res);
  },
  onListen: (app, server, ctx) => {
    const proxy = proxies.get(app)!;
    const c = ctx.config as ServiceConfig & GatewayEnv;
    applyServerTimeouts(server, c.GATEWAY_HEADERS_TIMEOUT_MS, c.GATEWAY_REQUEST_TIMEOUT_MS);
    proxy.attachUpgrades(server);
    server.once('close', () => proxy.close());
    // Shutdown waits for every connection to end; proxied WebSockets never end by themselves.
    const close = server.close.bind(server);
    server.close = ((cb?: (err?: Error) => void) => {
      proxy.closeUpgrades();
      return close(cb);
    }) as typeof server.close;
  },
};
