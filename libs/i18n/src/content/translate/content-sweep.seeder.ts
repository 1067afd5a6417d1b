import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { Topics } from '@flowplane/contracts';
import { ReadinessRegistry } from '@flowplane/platform/health';
import { ServiceClients } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import { seedScheduleEntry } from '../../shared/seed-schedule';
import { CONTENT_SWEEP_SCHEDULE } from './content-sweep';

const MAX_RETRY_MS = 2_000;

/**
 * Seeds the scheduler entry `content-translate-sweep` (CONTENT_TRANSLATE_SWEEP_CRON, UTC) that
 * publishes `content.translate.sweep`, the way `i18n-translate-sweep` is seeded: once present,
 * flow-runtime never retimes or re-enables it. Not seeded when the cron is empty, the sweep is
 * disabled (CONTENT_TRANSLATE_QUIET_MINUTES=0), automatic translation is off
 * (I18N_AUTO_TRANSLATE_DISABLED) or i18n is. The service is ready once the entry is seeded; a
 * failure retries (flow-runtime may start later), a cron flow-runtime refuses is logged once.
 */
@Injectable()
export class ContentSweepScheduleSeeder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('ContentSweepSchedule');
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private attempts = 0;

  constructor(
    @Inject(I18nConfig) private readonly config: I18nConfig,
    private readonly clients: ServiceClients,
    @Optional() private readonly readiness?: ReadinessRegistry,
  ) {}

  private get seeding(): boolean {
    return this.config.enabled && !this.config.autoTranslateDisabled && this.config.contentQuietMs > 0 && this.config.contentSweepCron.trim() !== '';
  }

  onApplicationBootstrap(): void {
    if (!this.seeding) return;
    const done = this.readiness?.beginSeeding('content translation sweep schedule');
    let delay = 25;
    const attempt = async (): Promise<void> => {
      if (this.stopped) return;
      this.attempts++;
      try {
        await this.execute();
        done?.();
      } catch (e) {
        if (this.attempts === 8) this.log.warn(`scheduler entry ${CONTENT_SWEEP_SCHEDULE} not seeded yet (retrying): ${(e as Error).message}`);
        this.timer = setTimeout(() => void attempt(), delay);
        this.timer.unref();
        delay = Math.min(MAX_RETRY_MS, delay * 2);
      }
    };
    void attempt();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** One attempt: `inserted`, `existing` or `refused` (a cron flow-runtime will not take). Throws to be retried. */
  async execute(): Promise<'inserted' | 'existing' | 'refused'> {
    const cron = this.config.contentSweepCron.trim();
    return seedScheduleEntry(this.clients, this.log, { id: CONTENT_SWEEP_SCHEDULE, cron, topic: Topics.ContentTranslateSweep, cronVariable: 'CONTENT_TRANSLATE_SWEEP_CRON' });
  }
}
