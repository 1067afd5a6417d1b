import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument, StoreSession } from '@flowplane/platform/store';
import type { ScheduleEntry } from './schedule.entity';

interface ScheduleDocument extends StoreDocument, Omit<ScheduleEntry, 'id' | 'payload'> {
  payloadJson: string;
}

function toEntity(d: ScheduleDocument): ScheduleEntry {
  const { _id, payloadJson, ...rest } = d;
  return { ...rest, id: _id, payload: JSON.parse(payloadJson) as Record<string, unknown> };
}

/** Scheduler entries in the flow-runtime store (payloads kept as JSON text so any keys survive). */
@Injectable()
export class ScheduleRepository implements OnModuleInit {
  private readonly entries: Collection<ScheduleDocument>;

  constructor(@Inject(STORE) store: Store) {
    this.entries = store.collection<ScheduleDocument>('schedules');
  }

  async onModuleInit(): Promise<void> {
    await this.entries.createIndex({ keys: { enabled: 1, nextRunAt: 1 }, name: 'due' });
  }

  async list(): Promise<ScheduleEntry[]> {
    return (await this.entries.find({}, { sort: { _id: 1 } })).map(toEntity);
  }

  async get(id: string): Promise<ScheduleEntry | undefined> {
    const d = await this.entries.findOne({ _id: id });
    return d ? toEntity(d) : undefined;
  }

  /** Inserts the entry unless one with its id exists (seeds never retime or re-enable). True when inserted. */
  async insertIfAbsent(e: ScheduleEntry): Promise<boolean> {
    const res = await this.entries.updateOne({ _id: e.id }, { $setOnInsert: this.fields(e) }, { upsert: true });
    return res.upsertedId !== undefined;
  }

  /** Creates or replaces an entry. */
  async save(e: ScheduleEntry): Promise<void> {
    await this.entries.replaceOne({ _id: e.id }, this.fields(e), { upsert: true });
  }

  /** Removes an entry; false when there was none. */
  async delete(id: string): Promise<boolean> {
    return (await this.entries.deleteOne({ _id: id })).deletedCount === 1;
  }

  /** Entries due at `now`. */
  async due(now: Date): Promise<ScheduleEntry[]> {
    return (await this.entries.find({ enabled: true, nextRunAt: { $lte: now } }, { sort: { nextRunAt: 1 }, limit: 100 })).map(toEntity);
  }

  /**
   * Moves a due entry to its next time, only if nobody else did (compare-and-set on `nextRunAt`):
   * of two replicas that both saw the entry due, exactly one claims this firing.
   */
  async claim(id: string, dueAt: Date, next: Date, firedAt: Date, session: StoreSession): Promise<boolean> {
    const res = await this.entries.updateOne({ _id: id, enabled: true, nextRunAt: dueAt }, { $set: { nextRunAt: next, lastFiredAt: firedAt, updatedAt: firedAt } }, { session });
    return res.modifiedCount === 1;
  }

  private fields(e: ScheduleEntry): Omit<ScheduleDocument, '_id'> {
    const { id: _id, payload, ...rest } = e;
    return { ...rest, payloadJson: JSON.stringify(payload) };
  }
}
