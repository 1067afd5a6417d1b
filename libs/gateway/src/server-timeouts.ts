import type { Server } from 'node:http';

/**
 * Applies the gateway's deadline for request headers to its Node server. The body has deadlines of
 * its own in the proxy (idle and total, answered with the JSON 408); Node's request timeout stays as
 * a backstop after both. Node checks these deadlines on a timer fixed when the server starts
 * listening (`connectionsCheckingInterval`, 30 s), so a 10 s header deadline could take 40 s to
 * fire: the timer is restarted to run four times per deadline. Should Node's internals change, the
 * deadlines still hold at Node's own pace.
 */
export function applyServerTimeouts(server: Server, headersTimeoutMs: number, requestTimeoutMs: number): void {
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = headersTimeoutMs + requestTimeoutMs;
  const every = Math.max(100, Math.min(30_000, Math.floor(headersTimeoutMs / 4)));
  const key = Object.getOwnPropertySymbols(server).find((s) => s.description === 'http.server.connectionsCheckingInterval');
  if (!key) return;
  const slots = server as unknown as Record<symbol, unknown>;
  const timer = slots[key] as (NodeJS.Timeout & { _onTimeout?: unknown; _repeat?: unknown }) | undefined;
  const check = timer?._onTimeout;
  if (typeof check !== 'function' || typeof timer?._repeat !== 'number' || timer._repeat <= every) return;
  clearInterval(timer);
  // The server clears whatever this slot holds when it closes.
  slots[key] = setInterval(check as () => void, every).unref();
}
