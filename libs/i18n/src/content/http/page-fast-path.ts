import type { INestApplication } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTP_METRICS, type HttpMetricsMiddleware } from '@flowplane/platform/health';
import { defaultLocaleFromEnv, frameAncestorsFromEnv, requestIdOf, resolveRequestLocale, securityHeaderList } from '@flowplane/platform/http';
import fresh from 'fresh';
import { type ServiceContext, weakEtag } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import { SLUG_MAX, SLUG_PATTERN } from '../domain/content.entity';
import { pageSurrogateHeaders, PublicPageCache } from '../use-cases/public-page.cache';

/** The public page route as Express routes it (the metrics label Nest's route gets). */
const PAGES_PREFIX = '/api/v1/pages/';
const METRICS_ROUTE = '/api/v1/pages/:slug';

/**
 * `GET /api/v1/pages/{slug}` in front of Express for a page already rendered in the request's locale
 * (PublicPageCache): the same answer as the Nest route (Content-Language, Vary, the request id, the
 * security headers, the request metrics and access line) without the guard, pipe and interceptor
 * chain. Anything else (a page not rendered yet, a query other than `lang`, an unknown slug, a
 * disabled service) goes to the Nest route, which stays the route's definition and produces every
 * error answer.
 */
export function pageFastPath(app: INestApplication, ctx: ServiceContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const config = app.get(I18nConfig);
  const cache = app.get(PublicPageCache);
  const metrics = app.get<HttpMetricsMiddleware>(HTTP_METRICS);
  const requestDefault = defaultLocaleFromEnv(ctx.env);
  const security = securityHeaderList(frameAncestorsFromEnv(ctx.env));
  const done = () => undefined;

  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PAGES_PREFIX) || !config.enabled) return false;
    const q = url.indexOf('?');
    const slug = url.slice(PAGES_PREFIX.length, q === -1 ? undefined : q);
    if (slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug)) return false;
    if (q !== -1 && !/^lang=[A-Za-z0-9_-]{1,100}$/.test(url.slice(q + 1))) return false;
    const length = req.headers['content-length'];
    if ((length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined) return false;
    const locale = resolveRequestLocale(req, requestDefault) || config.defaultLocale;
    const hit = cache.get(slug, locale);
    if (hit === undefined) return false;

    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req);
    (res as ServerResponse & { locals?: object }).locals = { metricsRoute: METRICS_ROUTE };
    metrics(req as never, res as never, done);
    res.setHeader('X-Request-Id', requestId);
    for (const [name, value] of security) res.setHeader(name, value);
    const bytes = (hit.bytes ??= Buffer.from(JSON.stringify(hit.page)));
    const etag = (hit.etag ??= weakEtag(bytes));
    res.setHeader('Content-Language', hit.contentLocale);
    res.setHeader('Vary', 'Accept-Language, Cookie');
    for (const [name, value] of (hit.surrogate ??= pageSurrogateHeaders(hit.page.slug))) res.setHeader(name, value);
    res.setHeader('ETag', etag);
    // As Express's res.send: a revalidation naming the current ETag gets 304 without a body.
    if (fresh(req.headers, { etag })) {
      res.statusCode = 304;
      res.end();
    } else {
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', bytes.length);
      res.end(bytes);
    }
    const status = res.statusCode;
    const log = PinoLogger.root;
    if (log?.isLevelEnabled('info')) {
      const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
      log.info({ service: ctx.name, requestId, method: 'GET', path: METRICS_ROUTE, status, ms }, `GET ${METRICS_ROUTE} ${status} ${ms}ms`);
    }
    return true;
  };
}
