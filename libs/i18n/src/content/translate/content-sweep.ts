import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type ContentTranslateSweepPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';
import { type ContentTranslateReport, ContentTranslator } from './content-translator';

/** The scheduler entry that publishes `content.translate.sweep` (stable id, UTC). */
export const CONTENT_SWEEP_SCHEDULE = 'content-translate-sweep';
/** One consumer group for every replica: a sweep event is taken by one of them, so replicas never multiply the cost. */
export const CONTENT_SWEEP_GROUP = 'i18n-content-translate-sweep';

/** What the last sweep did, kept for `GET /admin/content/translations/last-sweep`. */
export interface SweepRecord {
  firedAt?: string;
  scheduleId?: string;
  startedAt: string;
  finishedAt: string;
  /** The budget this sweep had; null when uncapped. */
  budget: number | null;
  quietMinutes: number;
  report: ContentTranslateReport;
}

interface SweepDocument extends StoreDocument {
  sweep: SweepRecord;
}

/** The last sweep's report in the store (any replica answers the admin read). */
@Injectable()
export class SweepReports {
  static readonly COLLECTION = 'i18n_content_translate_sweeps';
  private readonly docs: Collection<SweepDocument>;

  constructor(@Inject(STORE) store: Store) {
    this.docs = store.collection<SweepDocument>(SweepReports.COLLECTION);
  }

  async last(): Promise<SweepRecord | null> {
    return (await this.docs.findOne({ _id: 'last' }))?.sweep ?? null;
  }

  async save(sweep: SweepRecord): Promise<void> {
    await this.docs.replaceOne({ _id: 'last' }, { sweep }, { upsert: true });
  }
}

/**
 * The content sweep (settings rule 18): on `content.translate.sweep` it translates the ready
 * records that sat untouched for CONTENT_TRANSLATE_QUIET_MINUTES (0 disables the sweep: nothing is
 * subscribed), spending at most CONTENT_TRANSLATE_BUDGET (unit, locale) translations (the event's
 * `budget` overrides it), and keeps its report. One sweep runs at a time in a process; events that
 * arrive meanwhile wait their turn and find less to do.
 */
@Injectable()
export class ContentSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('ContentSweep');
  private subscription?: Subscription;
  private running: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(ContentTranslator) private readonly translator: ContentTranslator,
    @Inject(SweepReports) private readonly reports: SweepReports,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  get enabled(): boolean {
    return this.config.enabled && this.config.contentQuietMs > 0;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) {
      if (this.config.enabled) this.log.log('content translation sweep disabled (CONTENT_TRANSLATE_QUIET_MINUTES=0)');
      return;
    }
    this.subscription = await this.bus.subscribe<ContentTranslateSweepPayload>([Topics.ContentTranslateSweep], { groupId: CONTENT_SWEEP_GROUP }, async (event) => {
      await this.sweep(event.data ?? ({} as ContentTranslateSweepPayload));
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.abort.abort();
    await this.subscription?.stop();
  }

  /** One sweep, after any in progress. */
  sweep(payload: Partial<ContentTranslateSweepPayload> = {}): Promise<SweepRecord> {
    const next = this.running.then(() => this.once(payload));
    this.running = next.catch(() => undefined);
    return next;
  }

  private async once(payload: Partial<ContentTranslateSweepPayload>): Promise<SweepRecord> {
    const startedAt = new Date().toISOString();
    const budget = typeof payload.budget === 'number' && payload.budget >= 0 ? payload.budget : this.config.contentBudget;
    const report = await this.translator.run({ quietMs: this.config.contentQuietMs, budget, signal: this.abort.signal, usageContext: { purpose: 'content' } });
    const sweep: SweepRecord = {
      ...(payload.firedAt ? { firedAt: payload.firedAt } : {}),
      ...(payload.scheduleId ? { scheduleId: payload.scheduleId } : {}),
      startedAt,
      finishedAt: new Date().toISOString(),
      budget: budget > 0 ? budget : null,
      quietMinutes: this.config.contentQuietMs / 60_000,
      report,
    };
    const failed = report.failed.length ? `, ${report.failed.length} failed (${[...new Set(report.failed.map((f) => f.locale))].join(', ')})` : '';
    this.log.log(`content sweep: ${report.translated} translated, ${report.pending} held for review${failed}, ${report.remaining} left${report.reason ? ` (${report.reason})` : ''}`);
    await this.reports.save(sweep);
    return sweep;
  }
}
