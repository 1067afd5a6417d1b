/** Envelope of every hub frame sent to a client (spec: "Hub message envelope"). */
export interface HubFrame {
  type: string;
  /** Always a string (the spec's type): `""` on frames about no room (pong, connection-level errors). */
  room: string;
  /** null when there is no payload (acks). */
  data: unknown;
  ts: string;
}

/** Control types the hub itself sends; a broadcast may not use them. */
export const CONTROL_TYPES: ReadonlySet<string> = new Set(['subscribed', 'unsubscribed', 'pong', 'error', 'health']);

/** Envelope type of a broadcast whose body names none. */
export const DEFAULT_MESSAGE_TYPE = 'message';

/** Serialises one envelope; broadcasts serialise once and share the string with every member. */
export function encodeFrame(type: string, room?: string, data?: unknown): string {
  return JSON.stringify({ type, room: room ?? '', data: data ?? null, ts: new Date().toISOString() } satisfies HubFrame);
}

/** Room names: 1-200 of letters, digits and `_ . : @ | + -`, starting with a letter or digit. */
export const ROOM_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:@|+-]{0,199}$/;

/** Why a room name is refused, or undefined when it is valid. */
export function roomNameProblem(room: unknown): string | undefined {
  if (typeof room !== 'string' || room.length === 0) return 'room must be a non-empty string';
  if (room.length > 200) return 'room must be at most 200 characters';
  if (!ROOM_NAME.test(room)) return 'room may hold letters, digits and _ . : @ | + - and must start with a letter or digit';
  return undefined;
}

/** A parsed client frame, or the reason it is refused. */
export type ClientFrame = { action: 'subscribe' | 'unsubscribe'; room: string } | { action: 'ping' } | { error: string; room?: string };

/** Parses and validates a client frame. A client may only subscribe, unsubscribe or ping. */
export function parseClientFrame(raw: string): ClientFrame {
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return { error: 'frame is not valid JSON' };
  }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return { error: 'frame must be a JSON object with an action' };
  const { action, room } = msg as { action?: unknown; room?: unknown };
  if (action === 'ping') return { action: 'ping' };
  if (action === 'subscribe' || action === 'unsubscribe') {
    const problem = roomNameProblem(room);
    return problem ? { error: problem, room: typeof room === 'string' ? room.slice(0, 200) : undefined } : { action, room: room as string };
  }
  if (action === 'broadcast' || action === 'publish' || action === 'send') {
    return { error: 'clients cannot publish over the socket; use POST /ws/broadcast/{room}' };
  }
  return { error: 'unsupported action; use subscribe, unsubscribe or ping' };
}
