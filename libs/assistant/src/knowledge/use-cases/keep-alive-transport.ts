import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ServiceTransport } from '@flowplane/contracts';

// An idle socket is closed by this side before the server would close it. Node's agent applies a
// server's `Keep-Alive: timeout=N` hint (less a second) only when it lowers a timeout of its own,
// and without one it keeps idle sockets forever. A request written on a socket the server is closing
// at that moment would be reset.
const IDLE_SOCKET_MS = 30_000;
const HTTP_AGENT = new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
const HTTPS_AGENT = new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });

/**
 * A ServiceClient transport over node:http with a keep-alive agent. The retrieval node calls
 * search once per chat turn; undici's fetch spends more CPU on its WHATWG streams, signals and
 * per-request objects than the search itself takes (profiled), where node:http on a reused socket
 * does not. It takes no AbortSignal either (see ServiceTransport): a cancelled attempt destroys the
 * request directly. The client's semantics (timeout over headers and body, retries, errors) are the
 * ServiceClient's own: this only moves the bytes, and rejects whenever no complete answer came.
 */
export const keepAliveTransport: ServiceTransport = (url, init, cancellation) => {
  const https = url.startsWith('https:');
  return new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
    const req = (https ? httpsRequest : httpRequest)(url, { method: init.method, headers, agent: https ? HTTPS_AGENT : HTTP_AGENT }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let complete = false;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        complete = true;
        resolve(responseOf(res.statusCode ?? 0, res.headers, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      });
      res.on('error', reject);
      // A socket closed mid-body ends without 'end'.
      res.on('close', () => complete || reject(new Error('connection closed before the body ended')));
    });
    req.on('error', reject);
    cancellation.onCancel((reason) => {
      reject(reason);
      req.destroy();
    });
    req.end(init.body);
  });
};

/** A Response as far as ServiceClient reads one. */
function responseOf(status: number, raw: IncomingHttpHeaders, body: Buffer): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return { status, ok: status >= 200 && status <= 299, headers, text: async () => body.toString('utf8') } as Response;
}
