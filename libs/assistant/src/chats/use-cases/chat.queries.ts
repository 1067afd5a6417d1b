import { Injectable } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { type Chat, SESSION_ID_PATTERN } from '../domain/chat.entity';
import { type ChatCursor, type ChatListFilter, ChatRepository } from '../persistence/chat.repository';

function encodeCursor(c: ChatCursor): string {
  return Buffer.from(JSON.stringify([c.at.getTime(), c.id])).toString('base64url');
}

function decodeCursor(cursor: string): ChatCursor {
  try {
    const [t, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof t === 'number' && Number.isFinite(t) && typeof id === 'string') return { at: new Date(t), id };
  } catch {
    /* falls through */
  }
  throw new DomainException('INVALID_CURSOR', 400, 'cursor is not a nextCursor of this listing');
}

/** Reads of chats: the caller's own transcript, and the admin list and detail. */
@Injectable()
export class ChatQueries {
  constructor(private readonly chats: ChatRepository) {}

  /** `GET /assistant/chats/me/{sessionId}`: the session id is the capability; 404 when unknown. */
  async mine(sessionId: string): Promise<Chat> {
    if (!SESSION_ID_PATTERN.test(sessionId)) throw new DomainException('INVALID_SESSION_ID', 400, 'sessionId must be 8 to 128 letters, digits, _ or -');
    const chat = await this.chats.findBySessionId(sessionId);
    if (!chat) throw new DomainException('CHAT_NOT_FOUND', 404, 'no chat for this session');
    return chat;
  }

  /** `GET /assistant/chats`: newest activity first. */
  async list(filter: ChatListFilter, limit: number, cursor?: string): Promise<{ items: Chat[]; nextCursor?: string }> {
    const rows = await this.chats.list(filter, limit + 1, cursor ? decodeCursor(cursor) : undefined);
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return { items, ...(rows.length > limit && last ? { nextCursor: encodeCursor({ at: last.lastActivityAt, id: last.id }) } : {}) };
  }

  /** `GET /assistant/chats/{id}`. */
  async get(id: string): Promise<Chat> {
    const chat = await this.chats.findById(id);
    if (!chat) throw new DomainException('CHAT_NOT_FOUND', 404, `no chat ${id}`);
    return chat;
  }
}
