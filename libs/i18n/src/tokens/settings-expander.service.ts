import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit, Optional } from '@nestjs/common';
import { PublicSettingsReader } from '@flowplane/contracts';
import { currentLocale } from '@flowplane/platform/http';
import { SERVICE_CONTEXT, type ServiceContext, ServiceClients } from '@flowplane/platform/service';
import { expandSettingsTokens, hasSettingsToken, NO_SETTINGS, type SettingLookup, snapshotLookup, type TokenVariant } from './settings-tokens';

/** Injection token of the public-settings reader the expander reads through (tests supply their own). */
export const I18N_PUBLIC_SETTINGS = Symbol('I18N_PUBLIC_SETTINGS');

/** The part of `PublicSettingsReader` the expander needs. */
export type PublicSettingsSource = Pick<PublicSettingsReader, 'snapshot'> & Partial<Pick<PublicSettingsReader, 'listen' | 'invalidate'>>;

/** Warn about an unreachable profiles service at most this often. */
const WARN_EVERY_MS = 60_000;

/**
 * Expands `[[ module.key ]]` settings tokens in catalog and content strings (localization.md,
 * settings tokens rules 1–9) through the separate public-settings reader: only public,
 * non-sensitive settings, fetched from the profiles service, cached, and dropped on
 * `settings.updated`. Localized settings resolve with the given locale, by default the request's
 * (`currentLocale()`; empty means the source language). Call it after interpolation, so a setting
 * value holding `{{` stays literal text. While the profiles service has never answered, tokens stay
 * verbatim: the string is still served.
 */
@Injectable()
export class SettingsExpander implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('SettingsTokens');
  private subscription?: { stop(): Promise<void> };
  private warnedAt = -Infinity;
  private readonly listeners: Array<() => void> = [];
  private readonly reader?: PublicSettingsSource;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
    @Optional() clients?: ServiceClients,
    @Optional() @Inject(I18N_PUBLIC_SETTINGS) reader?: PublicSettingsSource | null,
  ) {
    // `null` supplied on purpose means "no reader": nothing expands (rule 2).
    this.reader = reader === null ? undefined : (reader ?? (clients ? new PublicSettingsReader(clients.for('profiles', { timeoutMs: 3000, retries: 0 }), { consumer: ctx.name }) : undefined));
  }

  async onModuleInit(): Promise<void> {
    const bus = this.ctx.bus;
    if (!bus || !this.reader?.listen) return;
    // Listeners run in the reader's own handler, after it dropped its snapshot, so whatever they
    // rebuild reads the new values (a second consumer group could run first).
    this.subscription = await this.reader.listen({
      subscribe: (topics, options, handler) =>
        bus.subscribe(topics, options, async (event) => {
          await handler(event);
          for (const listener of this.listeners) listener();
        }),
    });
  }

  /**
   * Drops the cached settings so the next lookup reads the current ones: for a consumer of
   * `settings.updated` on its own group, which may run before the reader's invalidation does.
   */
  refresh(): void {
    this.reader?.invalidate?.();
  }

  /** Calls `listener` after every settings change, once lookups read the new values. */
  onSettingsChanged(listener: () => void): void {
    this.listeners.push(listener);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  /** Plain-text expansion of one string (catalog messages, titles, SEO metadata). */
  plain(text: string, locale: string = currentLocale()): Promise<string> {
    return this.expand(text, 'plain', locale);
  }

  /** HTML expansion of one string: values escaped, markup untouched. */
  html(text: string, locale: string = currentLocale()): Promise<string> {
    return this.expand(text, 'html', locale);
  }

  /** Plain-text expansion of every value of a catalog, reading the settings once. */
  async plainAll(messages: Readonly<Record<string, string>>, locale: string = currentLocale()): Promise<Record<string, string>> {
    const out: Record<string, string> = { ...messages };
    const keys = Object.keys(out).filter((k) => hasSettingsToken(out[k]));
    if (keys.length === 0) return out;
    const lookup = await this.lookup(locale);
    for (const k of keys) out[k] = expandSettingsTokens(out[k], lookup, 'plain');
    return out;
  }

  /** One string, in either variant. */
  async expand(text: string, variant: TokenVariant, locale: string = currentLocale()): Promise<string> {
    if (!hasSettingsToken(text)) return text;
    return expandSettingsTokens(text, await this.lookup(locale), variant);
  }

  /** The settings lookup for `locale`; resolves nothing while no snapshot can be had. */
  async lookup(locale: string = currentLocale()): Promise<SettingLookup> {
    if (!this.reader) return NO_SETTINGS;
    try {
      return snapshotLookup(await this.reader.snapshot(), locale);
    } catch (err) {
      const now = Date.now();
      if (now - this.warnedAt >= WARN_EVERY_MS) {
        this.warnedAt = now;
        this.log.warn(`settings tokens stay verbatim: public settings unavailable (${(err as Error).message})`);
      }
      return NO_SETTINGS;
    }
  }
}
