import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

/** Envelope of every hub frame (spec: "Hub message envelope"). */
export interface HubFrame {
  type: string;
  room?: string;
  data?: unknown;
  ts: string;
}

const frame = (type: string, data?: unknown): string => JSON.stringify({ type, data, ts: new Date().toISOString() } satisfies HubFrame);

/**
 * Attaches the hub's WebSocket endpoints to the HTTP server. For now `<mount>/health`: a public
 * socket that reports `health` on connect and answers `{"action":"ping"}` with `pong`, used by the
 * gateway's upgrade-proxy checks and by operators to test WebSocket reachability end to end.
 */
export function attachHubSockets(server: Server, mountPath = '/ws'): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const healthPath = `${mountPath.replace(/\/$/, '')}/health`;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== healthPath) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"statusCode":404,"error":"Not Found","message":"no WebSocket endpoint here"}');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => onHealthSocket(ws));
  });
  server.once('close', () => {
    for (const c of wss.clients) c.close(1001, 'server shutting down');
    wss.close();
  });
  return wss;
}

function onHealthSocket(ws: WebSocket): void {
  ws.send(frame('health', { status: 'ok' }));
  ws.on('message', (raw) => {
    let msg: { action?: unknown };
    try {
      msg = JSON.parse(raw.toString()) as { action?: unknown };
    } catch {
      ws.send(frame('error', { message: 'frame is not valid JSON' }));
      return;
    }
    if (msg.action === 'ping') ws.send(frame('pong'));
    else ws.send(frame('error', { message: 'unsupported action; use {"action":"ping"}' }));
  });
}
