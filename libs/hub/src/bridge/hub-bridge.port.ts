/** One broadcast as it travels between replicas: the origin replica, the room and the serialised envelope. */
export interface BridgeMessage {
  origin: string;
  room: string;
  frame: string;
}

export type BridgeKind = 'noop' | 'nats' | 'redis';
/** `disabled` for noop; `connected` when publishes reach the coordinator and its messages reach us. */
export type BridgeState = 'disabled' | 'connecting' | 'connected' | 'disconnected' | 'closed';

export interface BridgeStatus {
  kind: BridgeKind;
  state: BridgeState;
  /** When the state last changed (ISO time). */
  since: string;
  /** Times the bridge came back after losing the coordinator. */
  reconnects: number;
  /** Short, credential-free reason of the last failure (an error code such as ECONNREFUSED). */
  lastError?: string;
}

/**
 * The HubBridge port (ARCHITECTURE §2): carries broadcasts between hub replicas over one
 * subject/channel. Adapters never block the caller: `publish` hands the message to the client
 * library or drops it when the coordinator is unreachable, and reconnecting is their own business.
 */
export interface HubBridge {
  readonly kind: BridgeKind;
  /** Starts connecting in the background; remote messages (including our own echo) go to `onMessage`. */
  start(onMessage: (msg: BridgeMessage) => void, onState?: (status: BridgeStatus) => void): void;
  /** True when handed to the coordinator, false when dropped because it is unreachable. */
  publish(msg: BridgeMessage): boolean;
  status(): BridgeStatus;
  close(): Promise<void>;
}

/** Wire form: compact JSON; the frame stays a string so a replica forwards it without re-serialising. */
export function encodeBridgeMessage(m: BridgeMessage): string {
  return JSON.stringify({ o: m.origin, r: m.room, f: m.frame });
}

/** Parses a wire message; undefined for anything malformed (another producer on the subject). */
export function decodeBridgeMessage(raw: string): BridgeMessage | undefined {
  try {
    const v = JSON.parse(raw) as { o?: unknown; r?: unknown; f?: unknown };
    if (typeof v.o === 'string' && typeof v.r === 'string' && typeof v.f === 'string') return { origin: v.o, room: v.r, frame: v.f };
  } catch {
    // fall through
  }
  return undefined;
}

/** Credential-free description of an error for /ws/health. */
export function errorCode(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown } | undefined;
  if (err && typeof err.code === 'string' && err.code) return err.code;
  const msg = typeof err?.message === 'string' ? err.message : String(e);
  // Never echo a URL (it may carry a password).
  return msg.replace(/[a-z]+:\/\/\S+/gi, '<url>').slice(0, 120);
}

/** Tracks the state and its timestamps for the adapters. */
export class BridgeStateTracker {
  private current: BridgeStatus;

  constructor(
    kind: BridgeKind,
    initial: BridgeState,
    private onChange: (s: BridgeStatus) => void = () => undefined,
  ) {
    this.current = { kind, state: initial, since: new Date().toISOString(), reconnects: 0 };
  }

  get state(): BridgeState {
    return this.current.state;
  }

  set(state: BridgeState, lastError?: string): void {
    if (lastError) this.current.lastError = lastError;
    if (state === this.current.state) return;
    const recovered = state === 'connected' && this.current.state === 'disconnected';
    this.current = { ...this.current, state, since: new Date().toISOString(), reconnects: this.current.reconnects + (recovered ? 1 : 0) };
    this.onChange(this.status());
  }

  setListener(fn: (s: BridgeStatus) => void): void {
    this.onChange = fn;
  }

  status(): BridgeStatus {
    return { ...this.current };
  }
}

/** COORD unset or noop: in-process only. */
export class NoopHubBridge implements HubBridge {
  readonly kind = 'noop' as const;
  private readonly tracker = new BridgeStateTracker('noop', 'disabled');
  start(): void {}
  publish(): boolean {
    return false;
  }
  status(): BridgeStatus {
    return this.tracker.status();
  }
  async close(): Promise<void> {}
}
