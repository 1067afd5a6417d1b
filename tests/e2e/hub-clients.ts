import WebSocket, { type ClientOptions } from 'ws';

export interface Frame {
  type: string;
  room: string | null;
  data: any;
  ts: string;
}

/** A refused upgrade: the HTTP status and JSON body the hub (or gateway) answered with. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    readonly body: any,
  ) {
    super(`upgrade refused with ${status}: ${JSON.stringify(body)}`);
  }
}

/** A real `ws` client that records every frame and its close. */
export class HubClient {
  readonly frames: Frame[] = [];
  closed?: { code: number; reason: string };
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      this.frames.push(JSON.parse(d.toString()) as Frame);
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
    ws.on('error', () => undefined);
  }

  static connect(url: string, options: ClientOptions = {}): Promise<HubClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, options);
      const client = new HubClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // keep the text
          }
          reject(new Refused(res.statusCode ?? 0, body));
        });
      });
      ws.once('error', (e) => reject(e));
    });
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  /** Frames of a type (broadcast messages default to `message`). */
  of(type: string): Frame[] {
    return this.frames.filter((f) => f.type === type);
  }

  /** Waits until `check` holds (re-checked on every frame and on close). */
  async until(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames.slice(-5))} closed: ${JSON.stringify(this.closed)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The next frame after the `seen` first ones. */
  async frameAt(index: number, timeoutMs = 5000): Promise<Frame> {
    await this.until(() => this.frames.length > index, timeoutMs, `frame #${index}`);
    return this.frames[index];
  }

  async waitClose(timeoutMs = 5000): Promise<{ code: number; reason: string }> {
    await this.until(() => this.closed !== undefined, timeoutMs, 'close');
    return this.closed!;
  }

  /** Stops reading from the socket (a client that stalls). */
  pause(): void {
    (this.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  }

  resume(): void {
    (this.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** Expects an upgrade to be refused; returns the status and body. */
export async function refusal(url: string, options: ClientOptions = {}): Promise<Refused> {
  try {
    const c = await HubClient.connect(url, options);
    c.close();
  } catch (e) {
    if (e instanceof Refused) return e;
    throw e;
  }
  throw new Error(`upgrade to ${url} was accepted`);
}

/** Polls until `check` resolves truthy. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
