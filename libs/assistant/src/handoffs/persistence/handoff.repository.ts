import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Filter, Store, StoreDocument, StoreSession, Update } from '@flowplane/platform/store';
import type { Handoff, HandoffStatus } from '../domain/handoff.entity';

/** A stored handoff: the entity without its id, plus the dedup field below. */
type HandoffDocument = StoreDocument &
  Omit<Handoff, 'id'> & {
    /**
     * The session id while the request is pending, absent otherwise: a unique sparse index on it
     * admits one pending request per session, so concurrent requests cannot both file one.
     */
    pendingSession?: string;
  };

/** A position in the admin list: the last item's creation time and id. */
export interface HandoffCursor {
  at: Date;
  id: string;
}

/** What a new handoff stores (status pending). */
export type NewHandoff = Omit<Handoff, 'id' | 'status' | 'contactedAt' | 'contactedBy' | 'notes' | 'updatedAt'>;

/** Handoffs on the Store port: collection `assistant_handoffs`, no TTL (rule 2: they outlive chats). */
@Injectable()
export class HandoffRepository implements OnModuleInit {
  static readonly COLLECTION = 'assistant_handoffs';
  private readonly handoffs: Collection<HandoffDocument>;
  private indexed?: Promise<unknown>;

  constructor(@Inject(STORE) store: Store) {
    this.handoffs = store.collection<HandoffDocument>(HandoffRepository.COLLECTION);
  }

  async onModuleInit(): Promise<void> {
    await this.ensureIndexes();
  }

  /** One pending request per session; the admin list's orders (idempotent). */
  ensureIndexes(): Promise<unknown> {
    return (this.indexed ??= Promise.all([
      this.handoffs.createIndex({ keys: { pendingSession: 1 }, name: 'handoff_pending_session', unique: true, sparse: true }),
      this.handoffs.createIndex({ keys: { status: 1, createdAt: -1 }, name: 'handoff_status_created' }),
      this.handoffs.createIndex({ keys: { createdAt: -1 }, name: 'handoff_created' }),
    ]));
  }

  /** Files a pending request; throws `DuplicateKeyError` when the session already has one. */
  async insertPending(handoff: NewHandoff, session?: StoreSession): Promise<Handoff> {
    const doc = await this.handoffs.insertOne(
      { ...stripUndefined(handoff), pendingSession: handoff.sessionId, status: 'pending', updatedAt: handoff.createdAt },
      { session },
    );
    return toEntity(doc);
  }

  async findById(id: string): Promise<Handoff | null> {
    const doc = await this.handoffs.findOne({ _id: id });
    return doc && toEntity(doc);
  }

  /** The session's pending request, or null. */
  async findPending(sessionId: string, session?: StoreSession): Promise<Handoff | null> {
    const doc = await this.handoffs.findOne({ pendingSession: sessionId }, { session });
    return doc && toEntity(doc);
  }

  /** Newest first, after `cursor`; `status` undefined lists every status. One more than `limit` tells there is a next page. */
  async list(status: HandoffStatus | undefined, limit: number, cursor?: HandoffCursor): Promise<Handoff[]> {
    const where: Filter = {};
    if (status) where.status = status;
    if (cursor) where.$or = [{ createdAt: { $lt: cursor.at } }, { createdAt: cursor.at, _id: { $lt: cursor.id } }];
    const docs = await this.handoffs.find(where, { sort: { createdAt: -1, _id: -1 }, limit: limit + 1 });
    return docs.map(toEntity);
  }

  /**
   * Moves a request that is still in one of `from` to `status`; null when it is not (gone, or moved
   * to a final status meanwhile). Leaving pending frees the session for a new request.
   */
  async move(id: string, from: readonly HandoffStatus[], status: HandoffStatus, set: { contactedAt?: Date; contactedBy?: string; notes?: string }, now: Date): Promise<Handoff | null> {
    const update: Update = { $set: { ...stripUndefined(set), status, updatedAt: now } };
    if (status !== 'pending') update.$unset = { pendingSession: '' };
    const doc = await this.handoffs.findOneAndUpdate({ _id: id, status: { $in: [...from] } }, update, { returnDocument: 'after' });
    return doc && toEntity(doc);
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function toEntity(doc: HandoffDocument): Handoff {
  const { _id, pendingSession: _pending, ...rest } = doc;
  return { id: String(_id), ...rest };
}
