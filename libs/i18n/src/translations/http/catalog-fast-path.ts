import type { INestApplication } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTP_METRICS, type HttpMetricsMiddleware } from '@flowplane/platform/health';
import { defaultLocaleFromEnv, frameAncestorsFromEnv, requestIdOf, resolveRequestLocale, securityHeaderList } from '@flowplane/platform/http';
import type { ServiceContext } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import { LOCALE_CODE_PATTERN } from '../../locales/domain/locale.entity';
import { MAX_NAMESPACE_LENGTH, NO_CONTROL_CHARS } from '../../shared/i18n-fields';
import { type CatalogBody, matchesEtag, PublicCatalogService } from '../use-cases/public-catalog.service';

/** The catalog route as Express routes it (the metrics label Nest's route gets). */
export const CATALOG_PATH = '/api/v1/i18n/messages';

/** Longest `lang` the catalog query accepts (CatalogQueryDto). */
const MAX_LANG_LENGTH = 100;

interface CatalogQuery {
  locale?: string;
  ns?: string;
  lang?: string;
}

/**
 * `GET /api/v1/i18n/messages` in front of Express, for the requests frontends repeat on every page
 * load: a well-formed query whose catalog body is already built. It answers what the Nest route
 * answers (ETag, Cache-Control, Vary, 304 on If-None-Match, the request id, the security headers,
 * the request metrics and access line) without the guard, pipe and interceptor chain. Anything else
 * (a query the DTO might refuse, a body to build, a disabled service, HEAD) goes to the Nest route,
 * which stays the route's definition in the OpenAPI document and produces every error answer.
 */
export function catalogFastPath(app: INestApplication, ctx: ServiceContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const config = app.get(I18nConfig);
  const catalog = app.get(PublicCatalogService);
  const metrics = app.get<HttpMetricsMiddleware>(HTTP_METRICS);
  const requestDefault = defaultLocaleFromEnv(ctx.env);
  const security = securityHeaderList(frameAncestorsFromEnv(ctx.env));
  const bytes = new WeakMap<CatalogBody, Buffer>();
  const done = () => undefined;

  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(CATALOG_PATH)) return false;
    if (url.length > CATALOG_PATH.length && url.charCodeAt(CATALOG_PATH.length) !== 63 /* ? */) return false;
    if (!config.enabled || hasBody(req)) return false;
    const q = parseQuery(url.slice(CATALOG_PATH.length + 1));
    if (q === undefined) return false;
    const locale = q.locale || resolveRequestLocale(req, requestDefault) || config.defaultLocale;
    const body = catalog.cached(q.ns ?? '', locale);
    if (body === undefined) return false;

    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req);
    (res as ServerResponse & { locals?: object }).locals = { metricsRoute: CATALOG_PATH };
    metrics(req as never, res as never, done);
    res.setHeader('X-Request-Id', requestId);
    for (const [name, value] of security) res.setHeader(name, value);
    res.setHeader('ETag', body.etag);
    // Stored by browsers and CDNs, revalidated on every use (a 304 costs one small round trip).
    res.setHeader('Cache-Control', 'public, no-cache');
    if (!q.locale) res.setHeader('Vary', 'Accept-Language, Cookie');
    if (matchesEtag(header(req.headers['if-none-match']), body.etag)) {
      res.statusCode = 304;
      res.end();
    } else {
      let buf = bytes.get(body);
      if (buf === undefined) bytes.set(body, (buf = Buffer.from(body.json)));
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', buf.length);
      res.end(buf);
    }
    accessLog(ctx.name, requestId, res.statusCode, started);
    return true;
  };
}

/**
 * The catalog query when every parameter is one the DTO accepts, each once, with a value it
 * accepts; undefined for anything else, so the validation pipe answers it. Decoded as Express's
 * query parser decodes (`+` is a space, percent-escapes as UTF-8).
 */
export function parseQuery(query: string): CatalogQuery | undefined {
  const q: CatalogQuery = {};
  if (query === '') return q;
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) return undefined;
    const name = pair.slice(0, eq);
    if (name !== 'locale' && name !== 'ns' && name !== 'lang') return undefined;
    if (q[name] !== undefined) return undefined;
    const value = decode(pair.slice(eq + 1));
    if (value === undefined) return undefined;
    if (name === 'locale' && !LOCALE_CODE_PATTERN.test(value)) return undefined;
    if (name === 'ns' && (value.length > MAX_NAMESPACE_LENGTH || !NO_CONTROL_CHARS.test(value))) return undefined;
    if (name === 'lang' && value.length > MAX_LANG_LENGTH) return undefined;
    q[name] = value;
  }
  return q;
}

function decode(raw: string): string | undefined {
  const spaced = raw.includes('+') ? raw.replace(/\+/g, ' ') : raw;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/** A GET that carries a body goes through Express, whose body parser judges it. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** The access line pino-http writes for requests through Express (`METHOD /path STATUS Nms`). */
function accessLog(service: string, requestId: string, status: number, started: bigint): void {
  const log = PinoLogger.root;
  if (!log?.isLevelEnabled('info')) return;
  const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  log.info({ service, requestId, method: 'GET', path: CATALOG_PATH, status, ms }, `GET ${CATALOG_PATH} ${status} ${ms}ms`);
}
