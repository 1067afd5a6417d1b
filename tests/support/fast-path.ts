import { request as httpRequest } from 'node:http';

/**
 * Helpers of the tests that compare a route answered before Express (a fast path) with the same
 * route answered by Nest: the raw answer, and its comparable form without the headers that differ
 * on every response whichever path answers.
 */

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Headers that differ on every response, whichever path answers. */
export const VOLATILE_HEADERS: ReadonlySet<string> = new Set(['date', 'keep-alive', 'connection']);

/** Status, headers but the volatile ones (VOLATILE_HEADERS and `more`), and the body (parsed when JSON). */
export function comparable(a: Answer, more: readonly string[] = []): { status: number; headers: Record<string, unknown>; body: unknown } {
  const headers = Object.fromEntries(Object.entries(a.headers).filter(([k]) => !VOLATILE_HEADERS.has(k) && !more.includes(k)));
  let body: unknown = a.text;
  try {
    body = JSON.parse(a.text);
  } catch {
    /* not JSON (an event stream) */
  }
  return { status: a.status, headers, body };
}

/** One request with node:http (exact bytes and headers: a declared length, a bearer token when given). */
export function send(method: string, url: string, bearer: string | undefined, body: string | Buffer | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
    const req = httpRequest(
      url,
      { method, headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A JSON POST with a declared length (the only kind a JSON fast path takes). */
export function post(url: string, bearer: string | undefined, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return send('POST', url, bearer, body, headers);
}

/** The value of `http_requests_total` for a route and status on a service's /metrics (0 when absent). */
export async function requestCount(base: string, auth: Record<string, string>, route: string, status: string, method?: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers: auth })).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('http_requests_total') && l.includes(`route="${route}"`) && l.includes(`status="${status}"`) && (method === undefined || l.includes(`method="${method}"`)));
  return line ? Number(line.split(' ').pop()) : 0;
}
