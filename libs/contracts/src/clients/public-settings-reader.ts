import { hostname } from 'node:os';
import type { ServiceClient } from '../http/service-client';
import {
  type PublicSettingsSnapshot,
  resolveLocalizedText,
  settingValueAsText,
} from '../settings/setting-values';
import { Topics } from '../topics';

/** The internal route of the profiles service that answers a `PublicSettingsSnapshot`. */
export const PUBLIC_SETTINGS_SNAPSHOT_PATH = '/internal/public-settings';

/** Default time a fetched snapshot is used before the next read fetches again. */
export const PUBLIC_SETTINGS_DEFAULT_TTL_MS = 30_000;

/**
 * The part of an event bus the reader needs to drop its cache on `settings.updated`. The platform's
 * `EventBus` fits; kept structural so contracts stays free of the platform libs.
 */
export interface SettingsInvalidationBus {
  subscribe(
    topics: string[],
    options: { groupId: string; fromBeginning?: boolean },
    handler: (event: { data: unknown }) => Promise<void>,
  ): Promise<{ stop(): Promise<void> }>;
}

/** Construction options of a `PublicSettingsReader`. */
export interface PublicSettingsReaderOptions {
  /**
   * How long a fetched snapshot is used, in milliseconds (default 30 000). The bus invalidation makes
   * changes visible at once; the TTL bounds staleness when no bus is attached or an event is missed.
   * 0 fetches on every read.
   */
  ttlMs?: number;
  /** Name of the reading service; part of the default invalidation group id. Default `reader`. */
  consumer?: string;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * Reads public module settings for other services (localization.md, settings rules 2 and 7): the
 * separate, default-deny reader the i18n token expander uses, never the general settings reader.
 *
 * One call to the profiles service fetches every public setting (`GET /internal/public-settings`,
 * with the client's service token); the snapshot is cached in process for `ttlMs` and dropped when
 * `settings.updated` arrives through `listen(bus)`. Locales are resolved here with the same chain
 * as the public route: requested locale, its base, the source locale, then any non-empty value.
 */
export class PublicSettingsReader {
  private readonly ttlMs: number;
  private readonly consumer: string;
  private readonly now: () => number;
  private cached?: { snapshot: PublicSettingsSnapshot; fetchedAt: number };
  private inflight?: Promise<PublicSettingsSnapshot>;
  private lastGood?: PublicSettingsSnapshot;
  // Bumped by every invalidation: a fetch that started before it must not repopulate the cache.
  private generation = 0;

  constructor(
    private readonly client: ServiceClient,
    options: PublicSettingsReaderOptions = {},
  ) {
    const ttl = options.ttlMs ?? PUBLIC_SETTINGS_DEFAULT_TTL_MS;
    if (!Number.isFinite(ttl) || ttl < 0) throw new Error(`PublicSettingsReader: ttlMs must be >= 0, got ${ttl}`);
    this.ttlMs = ttl;
    this.consumer = options.consumer ?? 'reader';
    this.now = options.now ?? Date.now;
  }

  /**
   * The public value of `module`/`key` as text, for `locale` when the setting is localized (empty or
   * absent: the source language). Undefined when the setting is unknown, private, sensitive, unset or
   * empty, so a token expander leaves the token verbatim. Rejects when the profiles service cannot be
   * reached and no snapshot was ever fetched; the last fetched snapshot is used while it is unreachable.
   */
  async get(module: string, key: string, locale?: string): Promise<string | undefined> {
    const snapshot = await this.snapshot();
    const entry = Object.prototype.hasOwnProperty.call(snapshot.settings, module)
      ? snapshot.settings[module]
      : undefined;
    const setting = entry && Object.prototype.hasOwnProperty.call(entry, key) ? entry[key] : undefined;
    if (!setting) return undefined;
    if (setting.localized) return resolveLocalizedText(setting.value, locale, snapshot.sourceLocale)?.value;
    return settingValueAsText(setting.value);
  }

  /** Every public setting, from the cache when it is fresh. */
  async snapshot(): Promise<PublicSettingsSnapshot> {
    const cached = this.cached;
    if (cached && this.ttlMs > 0 && this.now() - cached.fetchedAt < this.ttlMs) return cached.snapshot;
    try {
      return await this.load();
    } catch (error) {
      // Stale beats nothing while the profiles service is unreachable: tokens keep expanding.
      if (this.lastGood) return this.lastGood;
      throw error;
    }
  }

  /** Drops the cached snapshot; the next read fetches. */
  invalidate(): void {
    this.generation++;
    this.cached = undefined;
    // A fetch in flight may predate the change: later reads must not join it.
    this.inflight = undefined;
  }

  /**
   * Subscribes to `settings.updated` and drops the cache on every event. The default group id,
   * `settings-invalidator-<consumer>-<hostname>`, is per replica so every replica hears every change
   * (fan-out); two readers in one process need different `consumer` names or group ids.
   */
  listen(bus: SettingsInvalidationBus, options: { groupId?: string } = {}): Promise<{ stop(): Promise<void> }> {
    const groupId = options.groupId ?? `settings-invalidator-${this.consumer}-${hostname()}`;
    return bus.subscribe([Topics.SettingsUpdated], { groupId, fromBeginning: false }, async () => {
      this.invalidate();
    });
  }

  // One fetch at a time: concurrent readers of an expired cache share it.
  private load(): Promise<PublicSettingsSnapshot> {
    if (!this.inflight) {
      const pending: Promise<PublicSettingsSnapshot> = this.fetch().finally(() => {
        if (this.inflight === pending) this.inflight = undefined;
      });
      this.inflight = pending;
    }
    return this.inflight;
  }

  private async fetch(): Promise<PublicSettingsSnapshot> {
    const generation = this.generation;
    const snapshot = checkSnapshot(await this.client.get<unknown>(PUBLIC_SETTINGS_SNAPSHOT_PATH));
    if (generation === this.generation) {
      this.cached = { snapshot, fetchedAt: this.now() };
      this.lastGood = snapshot;
    } else {
      this.lastGood ??= snapshot;
    }
    return snapshot;
  }
}

function checkSnapshot(data: unknown): PublicSettingsSnapshot {
  const s = data as Partial<PublicSettingsSnapshot> | undefined;
  if (!s || typeof s.sourceLocale !== 'string' || !s.settings || typeof s.settings !== 'object') {
    throw new Error('PublicSettingsReader: the profiles service answered an unexpected public settings body');
  }
  return s as PublicSettingsSnapshot;
}
