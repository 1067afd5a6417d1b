import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Filter, Store, StoreDocument, StoreSession } from '@flowplane/platform/store';
import type { Chat, ChatMessage, ChatStamp } from '../domain/chat.entity';

/** A stored chat: the entity without its id. */
type ChatDocument = StoreDocument & Omit<Chat, 'id'>;

/** Filters of the admin chat list. */
export interface ChatListFilter {
  userId?: string;
  flowId?: string;
  variantLabel?: string;
}

/** A position in the admin list: the last item's activity time and id. */
export interface ChatCursor {
  at: Date;
  id: string;
}

/**
 * Chats on the Store port: collection `assistant_chats`, unique on `sessionId`, reaped by a TTL
 * index on `expiresAt`. Reads filter on the expiry too, since a TTL reaper runs only now and then.
 * Every write takes an optional session so a use case can make it part of an outbox transaction.
 */
@Injectable()
export class ChatRepository implements OnModuleInit {
  static readonly COLLECTION = 'assistant_chats';
  private readonly chats: Collection<ChatDocument>;
  private indexed?: Promise<unknown>;

  constructor(@Inject(STORE) store: Store) {
    this.chats = store.collection<ChatDocument>(ChatRepository.COLLECTION);
  }

  async onModuleInit(): Promise<void> {
    await this.ensureIndexes();
  }

  /** Unique session, TTL on expiry, and the orders of the admin list (idempotent). */
  ensureIndexes(): Promise<unknown> {
    return (this.indexed ??= Promise.all([
      this.chats.createIndex({ keys: { sessionId: 1 }, name: 'chat_session', unique: true }),
      this.chats.createIndex({ keys: { expiresAt: 1 }, name: 'chat_ttl', expireAfterSeconds: 0 }),
      this.chats.createIndex({ keys: { userId: 1, lastActivityAt: -1 }, name: 'chat_user_activity' }),
      this.chats.createIndex({ keys: { flowId: 1, variantLabel: 1, lastActivityAt: -1 }, name: 'chat_variant_activity' }),
    ]));
  }

  /** The live (not expired) chat of a session, or null. */
  async findBySessionId(sessionId: string, now = new Date(), session?: StoreSession): Promise<Chat | null> {
    const doc = await this.chats.findOne({ sessionId, expiresAt: { $gt: now } }, { session });
    return doc && toEntity(doc);
  }

  /** The live chat with this storage id, or null. */
  async findById(id: string, now = new Date()): Promise<Chat | null> {
    const doc = await this.chats.findOne({ _id: id, expiresAt: { $gt: now } });
    return doc && toEntity(doc);
  }

  /**
   * Appends a turn to the session's chat, creating the chat (with its stamp) on the first message,
   * and moves `expiresAt`. An expired chat that the reaper has not removed yet is started afresh.
   */
  async append(stamp: ChatStamp, message: ChatMessage, expiresAt: Date, now: Date, session?: StoreSession): Promise<Chat> {
    await this.dropExpired(stamp.sessionId, now, session);
    return this.appendLive(stamp, message, expiresAt, now, session);
  }

  /** Throws away the session's chat when it has expired, so the next append stamps a fresh one. */
  async dropExpired(sessionId: string, now: Date, session?: StoreSession): Promise<void> {
    await this.chats.deleteOne({ sessionId, expiresAt: { $lte: now } }, { session });
  }

  /**
   * `append` without its expiry check, for a caller that ran `dropExpired` itself (the chat path
   * runs it beside the variant selection, off the way to the first frame).
   */
  async appendLive(stamp: ChatStamp, message: ChatMessage, expiresAt: Date, now: Date, session?: StoreSession): Promise<Chat> {
    const set: Record<string, unknown> = { expiresAt, lastActivityAt: now };
    const setOnInsert: Record<string, unknown> = {
      flowId: stamp.flowId,
      versionHash: stamp.versionHash,
      variantLabel: stamp.variantLabel,
      runIds: [],
      createdAt: now,
    };
    if (stamp.userId) set.userId = stamp.userId;
    const doc = await this.chats.findOneAndUpdate(
      { sessionId: stamp.sessionId },
      { $set: set, $setOnInsert: setOnInsert, $push: { messages: message } },
      { upsert: true, returnDocument: 'after', session },
    );
    return toEntity(doc as ChatDocument);
  }

  /**
   * Creates the chat of a session id that was just drawn (128 random bits, so no chat can hold it
   * yet): one insert, with nothing to look up, drop or merge. The document is the one `appendLive`
   * creates for a new session.
   */
  async startNew(stamp: ChatStamp, message: ChatMessage, expiresAt: Date, now: Date): Promise<Chat> {
    const doc: Omit<ChatDocument, '_id'> = {
      sessionId: stamp.sessionId,
      expiresAt,
      lastActivityAt: now,
      ...(stamp.userId ? { userId: stamp.userId } : {}),
      flowId: stamp.flowId,
      versionHash: stamp.versionHash,
      variantLabel: stamp.variantLabel,
      runIds: [],
      createdAt: now,
      messages: [message],
    };
    return toEntity(await this.chats.insertOne(doc));
  }

  /**
   * Takes back a user turn whose run could not start (nothing half-written): the chat goes when
   * that turn was all it had.
   */
  async withdraw(sessionId: string, at: Date): Promise<void> {
    const doc = await this.chats.findOne({ sessionId });
    if (!doc) return;
    const messages = doc.messages.filter((m) => !(m.role === 'user' && new Date(m.at).getTime() === at.getTime()));
    if (messages.length === 0 && doc.runIds.length === 0) await this.chats.deleteOne({ _id: doc._id });
    else await this.chats.updateOne({ _id: doc._id }, { $set: { messages } });
  }

  /**
   * Records that a run serves this chat; `versionHash` (given for the chat's first run, created
   * before its run started) stamps the version in the same write.
   */
  async addRun(sessionId: string, runId: string, versionHash?: string, session?: StoreSession): Promise<void> {
    await this.chats.updateOne({ sessionId }, { $addToSet: { runIds: runId }, ...(versionHash ? { $set: { versionHash } } : {}) }, { session });
  }

  /**
   * Appends the assistant turn a run wrote, once: a second call for the same run (a resumed stream
   * that saw the end too) changes nothing. Resolves false when the chat is gone or already has it.
   */
  async appendReply(sessionId: string, message: ChatMessage & { runId: string }, expiresAt: Date, now: Date): Promise<boolean> {
    const { modifiedCount } = await this.chats.updateOne(
      { sessionId, 'messages.runId': { $ne: message.runId } },
      { $push: { messages: message }, $set: { expiresAt, lastActivityAt: now }, $addToSet: { runIds: message.runId } },
    );
    return modifiedCount > 0;
  }

  /** Stores a rating on the assistant turn of `runId`; false when the chat has no such turn. */
  async rate(sessionId: string, runId: string, rating: 'up' | 'down', comment: string | undefined, now = new Date()): Promise<boolean> {
    const chat = await this.chats.findOne({ sessionId, expiresAt: { $gt: now } });
    if (!chat) return false;
    const i = chat.messages.findIndex((m) => m.role === 'assistant' && m.runId === runId);
    if (i < 0) return false;
    const set: Record<string, unknown> = { [`messages.${i}.rating`]: rating };
    if (comment !== undefined) set[`messages.${i}.comment`] = comment;
    const { matchedCount } = await this.chats.updateOne({ _id: chat._id, [`messages.${i}.runId`]: runId }, { $set: set });
    return matchedCount > 0;
  }

  /** Links a handoff to the session's chat; false when the session has no live chat. */
  async attachHandoff(sessionId: string, handoffId: string, session?: StoreSession, now = new Date()): Promise<boolean> {
    const { matchedCount } = await this.chats.updateOne(
      { sessionId, expiresAt: { $gt: now } },
      { $set: { handoffId } },
      { session },
    );
    return matchedCount > 0;
  }

  /** Live chats, newest activity first, after `cursor`; one more than `limit` tells there is a next page. */
  async list(filter: ChatListFilter, limit: number, cursor?: ChatCursor, now = new Date()): Promise<Chat[]> {
    const where: Filter = { expiresAt: { $gt: now } };
    if (filter.userId) where.userId = filter.userId;
    if (filter.flowId) where.flowId = filter.flowId;
    if (filter.variantLabel) where.variantLabel = filter.variantLabel;
    if (cursor) {
      where.$or = [{ lastActivityAt: { $lt: cursor.at } }, { lastActivityAt: cursor.at, _id: { $lt: cursor.id } }];
    }
    const docs = await this.chats.find(where, { sort: { lastActivityAt: -1, _id: -1 }, limit });
    return docs.map(toEntity);
  }

  /** Chats created in [from, to) (live or not yet reaped), for the per-variant stats. */
  async createdBetween(from: Date, to: Date): Promise<Chat[]> {
    const docs = await this.chats.find({ createdAt: { $gte: from, $lt: to } });
    return docs.map(toEntity);
  }

  /** Removes expired chats now (the TTL index does it too, on its own schedule); resolves how many. */
  async sweepExpired(now = new Date()): Promise<number> {
    const { deletedCount } = await this.chats.deleteMany({ expiresAt: { $lte: now } });
    return deletedCount;
  }
}

function toEntity(doc: ChatDocument): Chat {
  const chat: Chat = {
    id: doc._id,
    sessionId: doc.sessionId,
    flowId: doc.flowId,
    versionHash: doc.versionHash,
    variantLabel: doc.variantLabel,
    messages: (doc.messages ?? []).map((m) => ({ ...m, at: new Date(m.at) })),
    runIds: doc.runIds ?? [],
    expiresAt: new Date(doc.expiresAt),
    lastActivityAt: new Date(doc.lastActivityAt),
    createdAt: new Date(doc.createdAt),
  };
  // Stores may hand back null for a field written as undefined.
  if (doc.userId != null) chat.userId = doc.userId;
  if (doc.handoffId != null) chat.handoffId = doc.handoffId;
  return chat;
}
