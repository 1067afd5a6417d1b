import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import http from 'node:http';
import https from 'node:https';
import { DEFAULT_PORT, ERROR_PORT, type NodeDefinition, type NodeHandler, type NodeManifest } from '@flowplane/flow/engine';
import { OutboundTargetRefusedError, pinnedLookup, type ResolveAll, type ResolvedAddress, resolvePinned } from '@flowplane/llm';
import { NodeInputError } from './bus-publisher';
import { getPath, renderTemplate, stringifyValue } from './template';

export const HTTP_REQUEST_ID = 'svc/http-request';
export const HTTP_DEFAULT_TIMEOUT_MS = 10_000;
export const HTTP_MAX_TIMEOUT_MS = 60_000;
export const HTTP_DEFAULT_MAX_BYTES = 1024 * 1024;
export const HTTP_MAX_MAX_BYTES = 10 * 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
// Headers the node sets itself (or that would let a template desynchronise the request).
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive', 'proxy-connection']);

export type { ResolveAll, ResolvedAddress } from '@flowplane/llm';

export interface HttpRequestDeps {
  /** Whether private, loopback, link-local, ... targets are allowed (`FLOW_HTTP_ALLOW_PRIVATE=true`). Read per request. */
  allowPrivate: () => boolean;
  resolve?: ResolveAll;
}

/** A request the SSRF policy refuses. */
export class OutboundRequestRefusedError extends Error {
  readonly code = 'HTTP_TARGET_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRequestRefusedError';
  }
}

const errorSchema = { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] };

export const httpRequestManifest: NodeManifest = {
  id: HTTP_REQUEST_ID,
  name: 'HTTP request',
  kind: 'action',
  description:
    'Calls an external HTTP(S) URL. `url` and header values may hold `{{ path }}` placeholders over {input, packet, meta, step} (values inserted into the URL are percent-encoded; `{{ step.key }}` is the idempotency key of the step, the same when a step runs again, for an `Idempotency-Key` header). The body is the packet value at `bodyFrom` (strings as text, anything else as JSON; never for GET/HEAD). Private, loopback, link-local, unique-local, CGNAT and unspecified targets are refused unless FLOW_HTTP_ALLOW_PRIVATE=true; the host is resolved once and the connection goes to the checked address. Redirects are not followed. Any HTTP response, 4xx/5xx included, is emitted on `out` {status, headers, body} (body parsed when JSON); refusals, network errors, timeouts and oversized responses go to `Error` {error}.',
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      method: { type: 'string', enum: [...METHODS], title: 'Method', default: 'GET', 'x-order': 1 },
      url: { type: 'string', title: 'URL', description: 'http or https URL; `{{ path }}` placeholders allowed.', 'x-order': 2 },
      headers: {
        type: 'object',
        additionalProperties: { type: 'string' },
        title: 'Headers',
        description: 'Request headers; values may hold placeholders. Host, Content-Length and hop-by-hop headers are ignored.',
        default: {},
        'x-order': 3,
      },
      bodyFrom: {
        type: 'string',
        title: 'Body from',
        description: 'Dotted path of the packet sent as the body; blank sends none.',
        default: 'body',
        'x-order': 4,
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        maximum: HTTP_MAX_TIMEOUT_MS,
        title: 'Timeout (ms)',
        default: HTTP_DEFAULT_TIMEOUT_MS,
        'x-order': 5,
      },
      maxResponseBytes: {
        type: 'integer',
        minimum: 1,
        maximum: HTTP_MAX_MAX_BYTES,
        title: 'Maximum response size (bytes)',
        default: HTTP_DEFAULT_MAX_BYTES,
        'x-order': 6,
      },
    },
    required: ['url'],
    'x-ui': { order: ['method', 'url', 'headers', 'bodyFrom', 'timeoutMs', 'maxResponseBytes'] },
  },
  inputs: [{ port: 'in', description: 'The packet the URL, headers and body read from.', schema: {} }],
  outputs: [
    {
      port: DEFAULT_PORT,
      description: 'The response.',
      schema: {
        type: 'object',
        properties: { status: { type: 'integer' }, headers: { type: 'object', additionalProperties: { type: 'string' } }, body: {} },
        required: ['status', 'headers'],
      },
    },
    { port: ERROR_PORT, description: 'Refused target, network error, timeout or oversized response.', schema: errorSchema },
  ],
  // The request's own timeout (at most 60 s) fires first; this only bounds the step.
  timeoutMs: HTTP_MAX_TIMEOUT_MS + 5_000,
};

function clampInt(value: unknown, fallback: number, max: number): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < 1) return fallback;
  return Math.min(Math.floor(n), max);
}

/**
 * The address the request will connect to: every resolved address must pass the policy (one bad
 * record refuses the host, so round-robin DNS cannot smuggle an internal target), then the first
 * is pinned for the connection.
 */
export async function resolveTarget(hostname: string, allowPrivate: boolean, resolve?: ResolveAll): Promise<ResolvedAddress> {
  try {
    return await resolvePinned(hostname, { allowPrivate: () => allowPrivate, resolve, hint: 'set FLOW_HTTP_ALLOW_PRIVATE=true to allow' });
  } catch (e) {
    if (e instanceof OutboundTargetRefusedError) throw new OutboundRequestRefusedError(e.message);
    throw e;
  }
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NodeInputError(`invalid url ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new NodeInputError(`only http and https URLs are allowed, not ${url.protocol}`);
  return url;
}

function responseHeaders(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function parseBody(buffer: Buffer, contentType: string | undefined, method: string): unknown {
  if (method === 'HEAD') return null;
  const text = buffer.toString('utf8');
  if (contentType && /[/+]json\b/i.test(contentType) && text.trim() !== '') {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export function httpRequestHandler(deps: HttpRequestDeps): NodeHandler {
  return async (ctx) => {
    const config = ctx.config;
    // `step.key`: the step's idempotency key, for an `Idempotency-Key` header (same on a retried step).
    const scope = { input: ctx.input, packet: ctx.input, meta: ctx.meta, step: { key: ctx.stepKey, runId: ctx.runId, nodeId: ctx.nodeId } };
    const method = typeof config['method'] === 'string' ? config['method'].toUpperCase() : 'GET';
    if (!(METHODS as readonly string[]).includes(method)) throw new NodeInputError(`unsupported method ${method}`);
    if (typeof config['url'] !== 'string' || config['url'].trim() === '') throw new NodeInputError('config.url is required');
    const url = parseUrl(renderTemplate(config['url'], scope, encodeURIComponent));

    const headers: Record<string, string> = {};
    if (config['headers'] && typeof config['headers'] === 'object') {
      for (const [name, value] of Object.entries(config['headers'] as Record<string, unknown>)) {
        if (RESERVED_HEADERS.has(name.toLowerCase())) continue;
        headers[name.toLowerCase()] = renderTemplate(stringifyValue(value), scope).replace(/[\r\n]/g, ' ');
      }
    }
    let body: Buffer | undefined;
    const bodyFrom = config['bodyFrom'] ?? 'body';
    if (method !== 'GET' && method !== 'HEAD' && typeof bodyFrom === 'string' && bodyFrom.trim() !== '') {
      const value = getPath(ctx.input, bodyFrom);
      if (value !== undefined) {
        const isText = typeof value === 'string';
        body = Buffer.from(isText ? value : JSON.stringify(value), 'utf8');
        headers['content-type'] ??= isText ? 'text/plain; charset=utf-8' : 'application/json';
      }
    }
    if (body) headers['content-length'] = String(body.length);

    const timeoutMs = clampInt(config['timeoutMs'], HTTP_DEFAULT_TIMEOUT_MS, HTTP_MAX_TIMEOUT_MS);
    const maxBytes = clampInt(config['maxResponseBytes'], HTTP_DEFAULT_MAX_BYTES, HTTP_MAX_MAX_BYTES);
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
    const target = await resolveTarget(url.hostname, deps.allowPrivate(), deps.resolve);
    signal.throwIfAborted();

    const transport = url.protocol === 'https:' ? https : http;
    return await new Promise((resolve, reject) => {
      const fail = (error: Error) => reject(signal.aborted && !ctx.signal.aborted ? new Error(`${method} ${url.origin} timed out after ${timeoutMs} ms`) : error);
      const req = transport.request(
        {
          protocol: url.protocol,
          // The original host name stays (Host header, SNI, certificate check); the pinned lookup
          // makes the socket connect to the address that passed the policy (no second DNS answer).
          hostname: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          lookup: pinnedLookup(target),
          signal,
          auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
        },
        (res) => {
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > maxBytes) {
            res.destroy();
            reject(new Error(`response of ${declared} bytes exceeds the ${maxBytes} byte limit`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              res.destroy();
              reject(new Error(`response exceeds the ${maxBytes} byte limit`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', fail);
          res.on('end', () => {
            resolve({
              port: DEFAULT_PORT,
              packet: { status: res.statusCode ?? 0, headers: responseHeaders(res), body: parseBody(Buffer.concat(chunks), res.headers['content-type'], method) },
            });
          });
        },
      );
      req.on('error', fail);
      req.end(body);
    });
  };
}

export function httpRequestNode(deps: HttpRequestDeps): NodeDefinition {
  return { manifest: httpRequestManifest, handler: httpRequestHandler(deps) };
}
