import { Inject, Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { ReadinessRegistry } from '@flowplane/platform/health';
import { I18nConfig } from '../../i18n.config';
import { CONSOLE_MESSAGES, CONSOLE_NAMESPACE } from '../domain/console-messages';
import { WIDGET_MESSAGES, WIDGET_NAMESPACE } from '../domain/widget-messages';
import { I18nOutbox } from '../persistence/i18n.outbox';
import { TranslationRepository } from '../persistence/translation.repository';
import { I18nInstance } from './instance-id';
import { WriteTranslationUseCase } from './write-translation.use-case';

/** A user interface the platform ships whose strings live in the catalog. */
export interface SeededSurface {
  /** Catalog namespace, also the module named on its keys. */
  ns: string;
  /** Key → English (the surface's inline default) and Polish. */
  messages: Readonly<Record<string, { en: string; pl: string }>>;
}

/** The chat widget and the admin console. */
export const SEEDED_SURFACES: readonly SeededSurface[] = [
  { ns: WIDGET_NAMESPACE, messages: WIDGET_MESSAGES },
  { ns: CONSOLE_NAMESPACE, messages: CONSOLE_MESSAGES },
];

/**
 * Seeds the catalog of the platform's own user interfaces (English as code text, Polish as seed
 * text) at start-up. Write-once per key, like report-keys: a key that exists is left exactly as it
 * is, so curated or translated text survives restarts and upgrades; a key added to a surface later
 * is inserted on the next start.
 */
@Injectable()
export class SeedSurfaceMessagesUseCase implements OnApplicationBootstrap {
  private readonly log = new Logger('SurfaceMessages');

  constructor(
    @Inject(TranslationRepository) private readonly repository: TranslationRepository,
    @Inject(WriteTranslationUseCase) private readonly writer: WriteTranslationUseCase,
    @Inject(I18nOutbox) private readonly outbox: I18nOutbox,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(I18nInstance) private readonly instance: I18nInstance,
    @Optional() private readonly readiness?: ReadinessRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.enabled) return;
    for (const surface of SEEDED_SURFACES) {
      const done = this.readiness?.beginSeeding(`${surface.ns} messages`);
      try {
        const created = await this.execute(surface);
        if (created.length) this.log.log(`seeded ${created.length} ${surface.ns} messages`);
      } catch (e) {
        // The surface falls back to its inline English: a failed seed must not keep the service down.
        this.log.warn(`${surface.ns} messages not seeded: ${(e as Error).message}`);
      } finally {
        done?.();
      }
    }
  }

  /** Inserts the keys of `surface` that do not exist yet; resolves them. */
  async execute(surface: SeededSurface, now: Date = new Date()): Promise<string[]> {
    const { ns } = surface;
    const created: string[] = [];
    const at = now.toISOString();
    const by = `seed:${ns}`;
    await this.outbox.transaction(async (session) => {
      created.length = 0;
      const rows = Object.entries(surface.messages).map(([key, text]) => ({
        key,
        translations: { en: text.en, pl: text.pl },
        provenance: { en: { source: 'code' as const, by, at }, pl: { source: 'seed' as const, by, at } },
        modules: [ns],
      }));
      created.push(...(await this.repository.insertAllAbsent(ns, rows, now, session)));
      if (!created.length) return;
      for (const locale of ['en', 'pl']) await this.outbox.announceUpdated(session, { ns, locale, keys: created, all: false, instanceId: this.instance.id });
      await this.outbox.announceKeysChanged(session, ns, created, 'added');
    });
    if (created.length) this.writer.notify(ns, ['en', 'pl']);
    return created;
  }
}
