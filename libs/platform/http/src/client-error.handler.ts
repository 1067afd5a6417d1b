import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from './error-body';

/** Statuses and codes of the parse errors Node's HTTP server reports before a request exists. */
function classify(err: NodeJS.ErrnoException): { status: number; code: string; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'HEADERS_TOO_LARGE', message: 'request headers are larger than the server accepts' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'CHUNK_EXTENSIONS_TOO_LARGE', message: 'chunk extensions are larger than the server accepts' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: 'the request was not received in time' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, code: 'INVALID_METHOD', message: 'the request method is not valid' };
    case 'HPE_INVALID_URL':
      return { status: 400, code: 'INVALID_URL', message: 'the request target is not valid' };
    default:
      return { status: 400, code: 'MALFORMED_REQUEST', message: 'the request is not valid HTTP/1.1' };
  }
}

/**
 * Answers what Node's HTTP parser refuses (oversized headers, malformed request lines, header
 * timeouts) with the platform's JSON error body instead of Node's bare status line, then closes the
 * connection. A listener on `clientError` replaces Node's default answer entirely, so every socket
 * given here is closed; one that can no longer be written (the client reset it) is destroyed
 * quietly.
 */
export function handleClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { _headerSent?: boolean } })._httpMessage;
  // Same caution as Node's default: never write a status line into a response already under way.
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?._headerSent) {
    socket.destroy();
    return;
  }
  const { status, code, message } = classify(err);
  const requestId = randomUUID();
  const body = JSON.stringify({ ...errorBody(status, message, { code }), requestId });
  const head = [
    `HTTP/1.1 ${status} ${errorBody(status, '').error}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
  ].join('\r\n');
  socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
}

/** Installs `handleClientError` on a server (once). */
export function installClientErrorHandler(server: Server): void {
  if (server.listeners('clientError').includes(handleClientError)) return;
  server.on('clientError', handleClientError);
}
