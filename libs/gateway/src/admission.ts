import type { IncomingMessage } from 'node:http';
import type { UpstreamService } from './gateway.env';

/** Limits on what may hold an upstream connection for long (see GatewayEnv for each). */
export interface AdmissionLimits {
  /** Short-pool connections per service that long occupants may hold (connections minus reserve). */
  longSlots: number;
  /** Stream-pool connections per service. */
  streamConnections: number;
  streamsPerCaller: number;
  streamsPerClient: number;
  pendingPerClient: number;
  /** Seconds a refused client is told to wait. */
  retryAfterSeconds: number;
}

/** Why a request was not let in: the status, a code for clients and the Retry-After seconds. */
export interface Refusal {
  status: 429 | 503;
  code: string;
  message: string;
  retryAfter: number;
}

/** Gives back what was taken; calling it again does nothing. */
export type Release = () => void;

/** Counts per key; a key disappears at zero, so maps never grow with clients that have left. */
class Counts<K> {
  private readonly counts = new Map<K, number>();
  get(key: K): number {
    return this.counts.get(key) ?? 0;
  }
  add(key: K): void {
    this.counts.set(key, this.get(key) + 1);
  }
  remove(key: K): void {
    const n = this.get(key) - 1;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
  }
}

function once(fn: () => void): Release {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

/** True when the request asks for Server-Sent Events. */
export function wantsEventStream(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return accept !== undefined && accept.includes('text/event-stream');
}

/** True for a `text/event-stream` response content type. */
export function isEventStream(contentType: string | string[] | undefined): boolean {
  const type = Array.isArray(contentType) ? contentType[0] : contentType;
  return type !== undefined && type.trimStart().toLowerCase().startsWith('text/event-stream');
}

/**
 * Who is calling, for counting only: the bearer token's `sub`, read without verifying it (the
 * service verifies), else the token itself. A forged subject only moves a caller to another count;
 * the per-address cap still holds. Undefined without a bearer token.
 */
export function callerKey(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (!auth || !/^bearer /i.test(auth)) return undefined;
  const jwt = auth.slice(7).trim();
  const payload = jwt.split('.')[1];
  if (payload) {
    try {
      const sub = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown }).sub;
      if (typeof sub === 'string' && sub) return `sub:${sub}`;
    } catch {
      // not a JWT: count by the token
    }
  }
  return `token:${jwt.slice(-64)}`;
}

/**
 * Admission of what holds upstream connections for long: event streams (their own pool, capped per
 * caller and per client address) and slow or incomplete request bodies (capped per client address,
 * and kept off the last `reserve` connections of each short pool). Completed short requests are
 * never counted, so a client with a stream or an upload open still gets its ordinary answers.
 */
export class Admission {
  private readonly streamsByCaller = new Counts<string>();
  private readonly streamsByClient = new Counts<string>();
  private readonly streamsByService = new Counts<UpstreamService>();
  private readonly pendingByClient = new Counts<string>();
  private readonly longByService = new Counts<UpstreamService>();

  constructor(private readonly limits: AdmissionLimits) {}

  /**
   * Lets an event stream open: on the stream pool (`pool: 'stream'`) it counts against that pool's
   * size; a response on the short pool that turned out to be a stream takes a long slot there.
   */
  openStream(service: UpstreamService, client: string, caller: string | undefined, pool: 'stream' | 'short'): Release | Refusal {
    const l = this.limits;
    if (l.streamsPerClient > 0 && this.streamsByClient.get(client) >= l.streamsPerClient) {
      return this.tooMany('TOO_MANY_STREAMS', `too many open event streams from this address (limit ${l.streamsPerClient})`);
    }
    if (caller && l.streamsPerCaller > 0 && this.streamsByCaller.get(caller) >= l.streamsPerCaller) {
      return this.tooMany('TOO_MANY_STREAMS', `too many open event streams for this caller (limit ${l.streamsPerCaller})`);
    }
    let releaseSlot: Release | undefined;
    if (pool === 'stream') {
      if (this.streamsByService.get(service) >= l.streamConnections) return this.busy(service);
      this.streamsByService.add(service);
    } else {
      releaseSlot = this.takeLongSlot(service);
      if (!releaseSlot) return this.busy(service);
    }
    this.streamsByClient.add(client);
    if (caller) this.streamsByCaller.add(caller);
    return once(() => {
      this.streamsByClient.remove(client);
      if (caller) this.streamsByCaller.remove(caller);
      if (releaseSlot) releaseSlot();
      else this.streamsByService.remove(service);
    });
  }

  /** Counts a request whose body is still arriving against its client address. */
  beginPending(client: string): Release | Refusal {
    const cap = this.limits.pendingPerClient;
    if (cap > 0 && this.pendingByClient.get(client) >= cap) {
      return this.tooMany('TOO_MANY_PENDING_REQUESTS', `too many unfinished requests from this address (limit ${cap})`);
    }
    this.pendingByClient.add(client);
    return once(() => this.pendingByClient.remove(client));
  }

  /** A short-pool connection a long occupant may hold, or undefined when only the reserve is left. */
  takeLongSlot(service: UpstreamService): Release | undefined {
    if (this.longByService.get(service) >= this.limits.longSlots) return undefined;
    this.longByService.add(service);
    return once(() => this.longByService.remove(service));
  }

  private tooMany(code: string, message: string): Refusal {
    return { status: 429, code, message, retryAfter: this.limits.retryAfterSeconds };
  }

  private busy(service: UpstreamService): Refusal {
    return { status: 503, code: 'STREAMS_BUSY', message: `service ${service} has no free connection for another event stream`, retryAfter: this.limits.retryAfterSeconds };
  }
}

export function isRefusal(r: Release | Refusal): r is Refusal {
  return typeof r !== 'function';
}
