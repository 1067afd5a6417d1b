import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Outbox } from '@flowplane/platform/bus';
import { STORE } from '@flowplane/platform/service';
import { type Collection, DuplicateKeyError, type Store, type StoreDocument } from '@flowplane/platform/store';
import { nextRun, type ScheduleEntry } from './schedule.entity';
import { ScheduleRepository } from './schedule.repository';
import { SCHEDULER_OPTIONS, SCHEDULES_OUTBOX, type SchedulerOptions } from './scheduler.tokens';

interface LeaseDocument extends StoreDocument {
  holder: string;
  expiresAt: Date;
}

/**
 * Fires due scheduler entries. One replica holds a lease in the store and ticks; a firing is claimed
 * by compare-and-set on the entry's `nextRunAt` in the same transaction that enqueues its event, so
 * even two replicas that both believe they lead publish each firing once, and a crash between the
 * claim and the publish loses nothing (the outbox relays it).
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('Scheduler');
  private readonly leases: Collection<LeaseDocument>;
  private readonly holder = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private leader = false;

  constructor(
    @Inject(STORE) store: Store,
    private readonly repo: ScheduleRepository,
    @Inject(SCHEDULES_OUTBOX) private readonly outbox: Outbox,
    @Inject(SCHEDULER_OPTIONS) private readonly options: SchedulerOptions,
  ) {
    this.leases = store.collection<LeaseDocument>('scheduler_lease');
  }

  onApplicationBootstrap(): void {
    if (this.options.tickMs <= 0) return;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
    if (this.leader) await this.leases.deleteOne({ _id: 'scheduler', holder: this.holder }).catch(() => undefined);
  }

  /** Whether this replica currently holds the scheduler lease. */
  isLeader(): boolean {
    return this.leader;
  }

  /** One scheduler round: renew or take the lease, then fire what is due. Never throws. */
  tick(now = this.options.now()): Promise<void> {
    this.ticking ??= this.round(now).finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async round(now: Date): Promise<void> {
    try {
      this.leader = await this.acquire(now);
      if (!this.leader) return;
      for (const entry of await this.repo.due(now)) await this.fire(entry, now);
    } catch (e) {
      this.log.error({ err: e }, `scheduler round failed: ${(e as Error).message}`);
    }
  }

  private async acquire(now: Date): Promise<boolean> {
    const expiresAt = new Date(now.getTime() + this.options.leaseMs);
    try {
      const doc = await this.leases.findOneAndUpdate(
        { _id: 'scheduler', $or: [{ holder: this.holder }, { expiresAt: { $lte: now } }] },
        { $set: { holder: this.holder, expiresAt } },
        { upsert: true },
      );
      return doc?.holder === this.holder;
    } catch (e) {
      if (e instanceof DuplicateKeyError) return false; // another replica holds a live lease
      throw e;
    }
  }

  /** Fires one due entry: claim the firing and enqueue its event in one transaction. */
  async fire(entry: ScheduleEntry, now: Date): Promise<boolean> {
    if (!entry.nextRunAt) return false;
    const next = nextRun(entry.cron, now);
    return this.outbox.withTransaction(async (session) => {
      if (!(await this.repo.claim(entry.id, entry.nextRunAt!, next, now, session))) return false;
      await this.outbox.enqueue(session, entry.topic, { ...entry.payload, firedAt: now.toISOString(), scheduleId: entry.id }, { key: entry.id });
      this.log.log(`fired ${entry.id} on ${entry.topic}; next at ${next.toISOString()}`);
      return true;
    });
  }
}
