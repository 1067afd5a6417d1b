import { hostname as osHostname } from 'node:os';
import type { ServiceClient } from '../http/service-client';
import { ServiceCallError, ServiceUnavailableError } from '../http/service-client.errors';
import { ConsumerGroups, Topics } from '../topics';

/**
 * A profile as the profiles service answers `GET /internal/profiles/{module}/{kind}/{id}`: unmasked
 * (sensitive values included), because the resolver feeds it to the code that makes the call. The
 * object is shared by every caller of the cache and deep-frozen; merge it into a new object.
 */
export interface ResolvedProfile {
  readonly module: string;
  readonly kind: string;
  readonly profileId: string;
  readonly name: string;
  readonly description?: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly updatedAt: string;
}

/**
 * The part of the EventBus port the resolver uses, kept structural so contracts stays free of the
 * bus library (`EventBus` from `@flowplane/platform/bus` fits).
 */
export interface ProfileInvalidationBus {
  subscribe(
    topics: string[],
    options: { groupId: string; fromBeginning?: boolean },
    handler: (event: { data: unknown }) => Promise<void>,
  ): Promise<{ stop(): Promise<void> }>;
}

/** Construction options of a `ProfileResolver`. */
export interface ProfileResolverOptions {
  /** Client of the profiles service (base URL, service token, timeouts and retries). */
  client: Pick<ServiceClient, 'get'>;
  /** Bus carrying `profiles.updated`; without one, entries live until `ttlMs` (or forever). */
  bus?: ProfileInvalidationBus;
  /** Names this worker's fan-out group `profiles-invalidator-<hostname>`; default `os.hostname()`. */
  hostname?: string;
  /**
   * Safety net for a missed invalidation: an entry older than this is re-read. Unset means entries
   * live until an event drops them.
   */
  ttlMs?: number;
  /** Clock for the TTL; default `Date.now`. */
  now?: () => number;
}

/** Counters for metrics; monotonic except `entries` and `subscribed`. */
export interface ProfileResolverStats {
  /** Resolves answered from the cache (a cached "not found" included). */
  hits: number;
  /** Resolves that had to wait for the profiles service (joining an in-flight read included). */
  misses: number;
  /** Reads sent to the profiles service. */
  fetches: number;
  /** Invalidations applied: one per `profiles.updated` event and per `invalidate*()` call. */
  invalidations: number;
  /** Entries in the cache now. */
  entries: number;
  /** Whether the `profiles.updated` subscription is live. */
  subscribed: boolean;
}

/**
 * The profile does not exist (never created, or deleted while nodes still reference it). The
 * services' global error filter answers 404 with the message (exposed 4xx, like http-errors).
 */
export class ProfileNotFoundError extends Error {
  readonly code = 'PROFILE_NOT_FOUND';
  readonly status = 404;
  readonly expose = true;

  constructor(
    readonly module: string,
    readonly kind: string,
    readonly profileId: string,
  ) {
    super(`profile not found: ${module}/${kind}/${profileId}`);
    this.name = 'ProfileNotFoundError';
  }
}

/**
 * The profiles service could not answer (unreachable, timed out, or a 5xx after the client's
 * retries). The code maps to 503 in the services' global error filter.
 */
export class ProfilesUnavailableError extends Error {
  readonly code = 'SERVICE_UNAVAILABLE';
  readonly status = 503;

  constructor(
    readonly module: string,
    readonly kind: string,
    readonly profileId: string,
    cause: unknown,
  ) {
    super(`profiles service unavailable while resolving ${module}/${kind}/${profileId}`, { cause });
    this.name = 'ProfilesUnavailableError';
  }
}

/** The profiles service answered something that is not a profile of the asked address. */
export class InvalidProfileResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidProfileResponseError';
  }
}

// A cached "not found"; resolve() rethrows it without asking the service again.
const MISSING = null;

interface Entry {
  profile: ResolvedProfile | typeof MISSING;
  expiresAt: number;
}

interface Inflight {
  promise: Promise<ResolvedProfile>;
  /** Set when an invalidation arrived during the read: its answer may predate the write, so it is not cached. */
  superseded: boolean;
}

/**
 * Resolves profiles by (module, kind, id) for code that runs in another service (rule 18: a node
 * merges the profile underneath its own config; rule 19: a module resolves an `llm-chat` profile
 * itself), with an in-process cache that `profiles.updated` invalidates (rule 22).
 *
 * Every worker joins `profiles-invalidator-<hostname>` (its own consumer group, so every replica
 * sees every write) and drops the written entry. The cached path is a three-level Map lookup with
 * no allocation beyond the returned promise; `resolveCached()` skips even that.
 *
 * Concurrent misses of one key share one read. A "not found" is cached only while the
 * subscription is live, since the `created` event of that id is what drops it.
 */
export class ProfileResolver {
  /** The fan-out consumer group this resolver invalidates through. */
  readonly groupId: string;
  private readonly client: Pick<ServiceClient, 'get'>;
  private readonly bus?: ProfileInvalidationBus;
  private readonly ttlMs?: number;
  private readonly now: () => number;
  // module -> kind -> id: three lookups with the caller's strings, no composite key to build.
  private readonly cache = new Map<string, Map<string, Map<string, Entry>>>();
  private readonly inflight = new Map<string, Inflight>();
  private entryCount = 0;
  private hits = 0;
  private misses = 0;
  private fetches = 0;
  private invalidations = 0;
  private leave?: () => Promise<void>;
  private starting?: Promise<void>;
  private readonly listener = (data: unknown): void => this.onEvent(data);

  constructor(options: ProfileResolverOptions) {
    this.client = options.client;
    this.bus = options.bus;
    const host = options.hostname ?? osHostname();
    if (!host) throw new Error('ProfileResolver: hostname must not be empty');
    this.groupId = ConsumerGroups.profilesInvalidator(host);
    if (options.ttlMs !== undefined && !(Number.isFinite(options.ttlMs) && options.ttlMs > 0)) {
      throw new Error(`ProfileResolver: ttlMs must be a positive number, got ${options.ttlMs}`);
    }
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
  }

  /**
   * Joins the fan-out group on `profiles.updated`; resolves once the subscription is live. Entries
   * read before that could predate a write nobody told us about, so they are dropped. Without a bus
   * this does nothing.
   */
  async start(): Promise<void> {
    if (!this.bus || this.leave) return;
    if (!this.starting) {
      const bus = this.bus;
      this.starting = (async () => {
        const leave = await joinInvalidator(bus, this.groupId, this.listener);
        this.leave = leave;
        this.clear();
      })().finally(() => (this.starting = undefined));
    }
    await this.starting;
  }

  /** Leaves the group. The cache is emptied, since nothing would invalidate it any more. */
  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const leave = this.leave;
    this.leave = undefined;
    this.clear();
    await leave?.();
  }

  /** The profile at (module, kind, id), from the cache or read from the profiles service. */
  resolve(module: string, kind: string, profileId: string): Promise<ResolvedProfile> {
    const entry = this.lookup(module, kind, profileId);
    if (entry !== undefined) {
      this.hits++;
      return entry.profile === MISSING
        ? Promise.reject(new ProfileNotFoundError(module, kind, profileId))
        : Promise.resolve(entry.profile);
    }
    this.misses++;
    return this.load(module, kind, profileId);
  }

  /**
   * The cached profile, synchronously, or undefined when `resolve()` would have to ask the service
   * (or knows the profile is missing). Counts a hit only when it answers.
   */
  resolveCached(module: string, kind: string, profileId: string): ResolvedProfile | undefined {
    const entry = this.lookup(module, kind, profileId);
    if (entry === undefined || entry.profile === MISSING) return undefined;
    this.hits++;
    return entry.profile;
  }

  /** Drops one entry (and makes an in-flight read of it uncacheable). */
  invalidate(module: string, kind: string, profileId: string): void {
    this.invalidations++;
    this.drop(module, kind, profileId);
  }

  /** Drops every entry. */
  invalidateAll(): void {
    this.invalidations++;
    this.clear();
  }

  stats(): ProfileResolverStats {
    return {
      hits: this.hits,
      misses: this.misses,
      fetches: this.fetches,
      invalidations: this.invalidations,
      entries: this.entryCount,
      subscribed: this.leave !== undefined,
    };
  }

  private get cacheable(): boolean {
    // With a bus, only a live subscription makes an entry trustworthy.
    return !this.bus || this.leave !== undefined;
  }

  private lookup(module: string, kind: string, profileId: string): Entry | undefined {
    const entry = this.cache.get(module)?.get(kind)?.get(profileId);
    if (entry === undefined || this.ttlMs === undefined || this.now() < entry.expiresAt) return entry;
    this.remove(module, kind, profileId);
    return undefined;
  }

  private load(module: string, kind: string, profileId: string): Promise<ResolvedProfile> {
    const key = inflightKey(module, kind, profileId);
    const pending = this.inflight.get(key);
    if (pending) return pending.promise;
    const flight: Inflight = { promise: undefined as unknown as Promise<ResolvedProfile>, superseded: false };
    flight.promise = this.fetch(module, kind, profileId, flight).finally(() => {
      if (this.inflight.get(key) === flight) this.inflight.delete(key);
    });
    this.inflight.set(key, flight);
    return flight.promise;
  }

  private async fetch(module: string, kind: string, profileId: string, flight: Inflight): Promise<ResolvedProfile> {
    this.fetches++;
    let body: unknown;
    try {
      body = await this.client.get(
        `/internal/profiles/${encodeURIComponent(module)}/${encodeURIComponent(kind)}/${encodeURIComponent(profileId)}`,
      );
    } catch (error) {
      if (error instanceof ServiceCallError && !(error instanceof ServiceUnavailableError)) {
        if (error.status === 404) {
          // Only the `created` event of this id can drop a cached miss, so without a live subscription it is not kept.
          if (!flight.superseded && this.leave !== undefined) this.store(module, kind, profileId, MISSING);
          throw new ProfileNotFoundError(module, kind, profileId);
        }
        // 401/403/400 are a misconfiguration of this caller, not an outage: surface them as they are.
        if (error.status === undefined || error.status < 500) throw error;
      }
      if (error instanceof ServiceCallError) throw new ProfilesUnavailableError(module, kind, profileId, error);
      throw error;
    }
    const profile = toProfile(body, module, kind, profileId);
    if (!flight.superseded && this.cacheable) this.store(module, kind, profileId, profile);
    return profile;
  }

  private store(module: string, kind: string, profileId: string, profile: ResolvedProfile | typeof MISSING): void {
    let kinds = this.cache.get(module);
    if (!kinds) this.cache.set(module, (kinds = new Map()));
    let ids = kinds.get(kind);
    if (!ids) kinds.set(kind, (ids = new Map()));
    if (!ids.has(profileId)) this.entryCount++;
    ids.set(profileId, { profile, expiresAt: this.ttlMs === undefined ? Infinity : this.now() + this.ttlMs });
  }

  private remove(module: string, kind: string, profileId: string): void {
    const kinds = this.cache.get(module);
    const ids = kinds?.get(kind);
    if (!ids?.delete(profileId)) return;
    this.entryCount--;
    if (ids.size === 0) {
      kinds!.delete(kind);
      if (kinds!.size === 0) this.cache.delete(module);
    }
  }

  private drop(module: string, kind: string, profileId: string): void {
    this.remove(module, kind, profileId);
    const key = inflightKey(module, kind, profileId);
    const flight = this.inflight.get(key);
    if (flight) {
      flight.superseded = true;
      // The next resolve starts a fresh read instead of joining one that may return the old value.
      this.inflight.delete(key);
    }
  }

  private clear(): void {
    this.cache.clear();
    this.entryCount = 0;
    for (const flight of this.inflight.values()) flight.superseded = true;
    this.inflight.clear();
  }

  private onEvent(data: unknown): void {
    // The payload names the written profile; anything else (an older or newer producer) drops everything.
    if (isAddress(data)) this.invalidate(data.module, data.kind, data.profileId);
    else this.invalidateAll();
  }
}

function inflightKey(module: string, kind: string, profileId: string): string {
  return `${module}\u0000${kind}\u0000${profileId}`;
}

function isAddress(data: unknown): data is { module: string; kind: string; profileId: string } {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Record<string, unknown>;
  return typeof d.module === 'string' && typeof d.kind === 'string' && typeof d.profileId === 'string';
}

function toProfile(body: unknown, module: string, kind: string, profileId: string): ResolvedProfile {
  const where = `${module}/${kind}/${profileId}`;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidProfileResponseError(`profiles service answered a non-object for ${where}`);
  }
  const b = body as Record<string, unknown>;
  const config = b.config;
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new InvalidProfileResponseError(`profiles service answered no config object for ${where}`);
  }
  if (b.module !== module || b.kind !== kind || b.profileId !== profileId) {
    throw new InvalidProfileResponseError(`profiles service answered another profile for ${where}`);
  }
  return deepFreeze(b) as unknown as ResolvedProfile;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

// --- Shared fan-out subscriptions -------------------------------------------------------------

type Listener = (data: unknown) => void;

interface SharedGroup {
  listeners: Set<Listener>;
  subscription: Promise<{ stop(): Promise<void> }>;
}

// Standalone runs every service in one process on one bus with one hostname: resolvers of two
// services would join the same group and split its partitions, so each would miss the other half of
// the events. Resolvers of one bus and group therefore share one subscription and all hear every event.
const sharedGroups = new WeakMap<ProfileInvalidationBus, Map<string, SharedGroup>>();

async function joinInvalidator(
  bus: ProfileInvalidationBus,
  groupId: string,
  listener: Listener,
): Promise<() => Promise<void>> {
  let groups = sharedGroups.get(bus);
  if (!groups) sharedGroups.set(bus, (groups = new Map()));
  let group = groups.get(groupId);
  if (!group) {
    const listeners = new Set<Listener>();
    const subscription = bus.subscribe([Topics.ProfilesUpdated], { groupId, fromBeginning: false }, async (event) => {
      // Never throws: a failing invalidation must not park the event for the other listeners.
      for (const l of listeners) {
        try {
          l(event.data);
        } catch {
          /* a listener only drops cache entries */
        }
      }
    });
    const created: SharedGroup = { listeners, subscription };
    group = created;
    groups.set(groupId, created);
    subscription.catch(() => {
      if (groups.get(groupId) === created) groups.delete(groupId);
    });
  }
  const joined = group;
  joined.listeners.add(listener);
  try {
    await joined.subscription;
  } catch (error) {
    joined.listeners.delete(listener);
    throw error;
  }
  return async () => {
    if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return;
    if (groups.get(groupId) === joined) groups.delete(groupId);
    await (await joined.subscription).stop();
  };
}
