import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A response read off a raw socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: any;
  ms: number;
}

/** How a raw request frames its body. */
export type Framing = 'content-length' | 'chunked' | 'http/1.0';

/**
 * The bytes of a request with `body` framed as asked: a Content-Length (HTTP/1.1 or 1.0) or chunked
 * with chunks of `chunkSize` bytes. Every request asks for the connection to close after the answer.
 */
export function frameRequest(method: string, path: string, body: Buffer, framing: Framing, headers: Record<string, string> = {}, chunkSize = 1000): Buffer {
  const version = framing === 'http/1.0' ? 'HTTP/1.0' : 'HTTP/1.1';
  const lines = [`${method} ${path} ${version}`, 'Host: localhost', 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (framing === 'chunked') {
    lines.push('Transfer-Encoding: chunked');
    const parts: Buffer[] = [Buffer.from(lines.join('\r\n') + '\r\n\r\n')];
    for (let i = 0; i < body.length; i += chunkSize) {
      const chunk = body.subarray(i, i + chunkSize);
      parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from('0\r\n\r\n'));
    return Buffer.concat(parts);
  }
  lines.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), body]);
}

/** The same request as `frameRequest`, cut into the head and then one piece per chunk, to send with pauses in between. */
export function requestPieces(method: string, path: string, body: Buffer, framing: Framing, headers: Record<string, string> = {}, chunkSize = 1000): Buffer[] {
  const whole = frameRequest(method, path, body, framing, headers, chunkSize);
  const headEnd = whole.indexOf('\r\n\r\n') + 4;
  const pieces = [whole.subarray(0, headEnd)];
  const rest = whole.subarray(headEnd);
  // Chunked framing: cut right after each chunk's CRLF; otherwise every `chunkSize` bytes.
  const step = framing === 'chunked' ? chunkSize.toString(16).length + 2 + chunkSize + 2 : chunkSize;
  for (let i = 0; i < rest.length; i += step) pieces.push(rest.subarray(i, i + step));
  return pieces;
}

/** Parses a whole HTTP/1.x response (Content-Length, chunked or close-delimited). */
export function parseResponse(raw: Buffer, ms = 0): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of headerLines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let rest = raw.subarray(end + 4);
  if (headers['transfer-encoding']?.includes('chunked')) {
    const out: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd < 0) break;
      const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (!size) break;
      out.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    rest = Buffer.concat(out);
  } else if (headers['content-length'] !== undefined) {
    rest = rest.subarray(0, Number(headers['content-length']));
  }
  const text = rest.toString('utf8');
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text, body, ms };
}

/**
 * Sends `parts` on a fresh connection, waiting `gapMs` between them, and reads until the server
 * closes the connection. Rejects when nothing complete arrived within `timeoutMs`.
 */
export function rawExchange(port: number, parts: Array<Buffer | string>, { gapMs = 0, timeoutMs = 10_000 }: { gapMs?: number; timeoutMs?: number } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms; got ${Buffer.concat(got).toString('latin1').slice(0, 200)}`));
    }, timeoutMs);
    socket.on('data', (d) => got.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(got), Date.now() - started));
      } catch (e) {
        reject(e as Error);
      }
    });
    let i = 0;
    const next = () => {
      if (i >= parts.length || socket.destroyed) return;
      socket.write(parts[i++]);
      if (i < parts.length) setTimeout(next, gapMs);
    };
    socket.once('connect', next);
  });
}

/** A socket that sent `head` (and maybe a first body byte) and then stalls; collects what comes back. */
export interface StalledClient {
  socket: Socket;
  /** Resolves with the answer once the server closes the connection. */
  answer: Promise<RawResponse | undefined>;
}

export function stalledClient(port: number, head: string): Promise<StalledClient> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    const answer = new Promise<RawResponse | undefined>((done) => {
      socket.on('data', (d) => got.push(d));
      socket.on('close', () => {
        try {
          done(parseResponse(Buffer.concat(got), Date.now() - started));
        } catch {
          done(undefined);
        }
      });
    });
    socket.on('error', () => undefined);
    socket.once('error', reject);
    socket.once('connect', () => socket.write(head, () => resolve({ socket, answer })));
  });
}

/** The soft limit on open files of this process (Linux), or undefined elsewhere. */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

/** What an echo upstream saw of one request. */
export interface EchoRecord {
  service: string;
  method: string;
  url: string;
  bytes: number;
  sha256: string;
  text?: string;
  contentLength?: string;
  transferEncoding?: string;
}

/**
 * An upstream that answers every request with what it received: its name, the method, the path,
 * the body's size and hash (and text when short). `Accept: text/event-stream` or a path ending in
 * `/sse` opens an event stream that stays open until the client leaves.
 */
export async function echoUpstream(service: string): Promise<{ server: Server; url: string; seen: EchoRecord[]; openStreams: () => number }> {
  const seen: EchoRecord[] = [];
  let streams = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.accept?.includes('text/event-stream') || req.url?.endsWith('/sse')) {
      streams++;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`event: hello\ndata: {"service":"${service}"}\n\n`);
      res.once('close', () => streams--);
      return;
    }
    const hash = createHash('sha256');
    let bytes = 0;
    const head: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      hash.update(c);
      if (bytes < 4096) head.push(c);
      bytes += c.length;
    });
    req.on('end', () => {
      const rec: EchoRecord = {
        service,
        method: req.method ?? '',
        url: req.url ?? '',
        bytes,
        sha256: hash.digest('hex'),
        contentLength: req.headers['content-length'],
        transferEncoding: req.headers['transfer-encoding'],
      };
      if (bytes <= 4096) rec.text = Buffer.concat(head).toString('utf8');
      seen.push(rec);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(rec));
    });
    req.on('error', () => undefined);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, openStreams: () => streams };
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** `[[[...]]]` nested `levels` deep. */
export const nestedJson = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
