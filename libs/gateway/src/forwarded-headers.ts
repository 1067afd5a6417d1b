import type { IncomingMessage } from 'node:http';
import vary from 'vary';

// RFC 9110 §7.6.1: connection-specific headers are not forwarded by a proxy.
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * A request's end-to-end headers (hop-by-hop ones dropped, `host` too unless kept) plus
 * X-Forwarded-For/Host/Proto naming the client and how it reached the gateway.
 */
export function forwardedRequestHeaders(req: IncomingMessage, keepHost: boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined && !HOP_BY_HOP.has(k) && (keepHost || k !== 'host')) out[k] = v;
  }
  const client = req.socket.remoteAddress ?? '';
  const prior = req.headers['x-forwarded-for'];
  out['x-forwarded-for'] = prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${client}` : client;
  if (req.headers.host) out['x-forwarded-host'] = req.headers.host;
  out['x-forwarded-proto'] = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  return out;
}

/**
 * One `Vary` from the gateway's own (CORS adds `Origin` for a listed origin) and the upstream's:
 * each field once, the gateway's first (the `vary` module Express and cors use). Taking either
 * alone would let a cache in front serve one origin's CORS answer, or one language's page, to
 * another. An upstream `Vary` that is not a list of field names is passed on as it came.
 */
export function mergeVary(own: number | string | readonly string[] | undefined, upstream: string | readonly string[] | undefined): string | undefined {
  const mine = own === undefined ? '' : Array.isArray(own) ? own.join(', ') : String(own);
  const theirs = upstream === undefined ? '' : Array.isArray(upstream) ? upstream.join(', ') : String(upstream);
  if (!theirs.trim()) return mine.trim() || undefined;
  try {
    return vary.append(mine, theirs) || undefined;
  } catch {
    return theirs;
  }
}
