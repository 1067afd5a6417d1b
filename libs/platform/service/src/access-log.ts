import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DestinationStream, Level } from 'pino';
import type { Options } from 'pino-http';
import { redactUrl } from './redaction';

type Req = IncomingMessage & { originalUrl?: string };

/** Probes and scrapes: logged at no level, they would drown the requests people care about. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

const pathOf = (req: Req): string => (req.originalUrl ?? req.url ?? '').split('?')[0];

/**
 * pino-http options of the access log: one line per request, `METHOD /path STATUS Nms`, with
 * `method`, `path`, `status`, `ms` and `requestId` as fields (and `service` from the caller's
 * customProps). The request and response with their headers, redacted, ride along only when the
 * level is debug or trace, so an info log never carries a credential or a cookie.
 */
export function accessLogOptions(level: string): Options {
  const verbose = level === 'debug' || level === 'trace';
  const fields = (req: Req, res: ServerResponse, val: { res?: unknown; err?: unknown; responseTime?: number }) => ({
    method: req.method,
    path: pathOf(req),
    status: res.statusCode,
    ms: val.responseTime,
    ...(verbose ? { req, res: val.res } : {}),
  });
  const message = (req: Req, res: ServerResponse, ms: number) => `${req.method} ${pathOf(req)} ${res.statusCode} ${ms}ms`;
  return {
    level,
    // The request id is the only binding of logs made while a request runs, and the access line's
    // own fields say the rest: no request object, with its headers, on every line.
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: 'requestId' },
    customLogLevel: (_req, res, err): Level => (err || res.statusCode >= 500 ? 'warn' : 'info'),
    customSuccessObject: (req, res, val) => fields(req, res, val),
    customErrorObject: (req, res, _err, val) => fields(req, res, val),
    customSuccessMessage: (req, res, ms) => message(req, res, ms),
    // pino-http passes the response time here too; its types leave it out.
    customErrorMessage: ((req: Req, res: ServerResponse, _err: Error, ms: number) => message(req, res, ms)) as Options['customErrorMessage'],
    // Applied over pino's standard serializers (url, query, params, headers; statusCode, headers).
    serializers: { req: (req: { url?: string }) => ({ ...req, url: redactUrl(req.url) }) },
    autoLogging: { ignore: (req) => QUIET_PATHS.has(pathOf(req)) },
  };
}

let pretty: DestinationStream | undefined;

/**
 * The stream of LOG_PRETTY=true: pino-pretty in this process (no worker thread per service, which
 * standalone would start eight of), one line per entry, written synchronously so the last lines
 * before an exit are not lost.
 */
export function prettyLogStream(): DestinationStream {
  if (!pretty) {
    // Loaded on demand: only LOG_PRETTY needs it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const build = require('pino-pretty') as typeof import('pino-pretty');
    pretty = build({ singleLine: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', colorize: process.stdout.isTTY === true });
  }
  return pretty;
}
