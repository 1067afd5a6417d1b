import { Injectable } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import type { Handoff, HandoffStatus } from '../domain/handoff.entity';
import { type HandoffCursor, HandoffRepository } from '../persistence/handoff.repository';
import { notFound } from './update-handoff.use-case';

/** One page of the admin list. */
export interface HandoffPage {
  items: Handoff[];
  next?: HandoffCursor;
}

/** Reads of the admin handoff routes. */
@Injectable()
export class HandoffQueries {
  constructor(private readonly handoffs: HandoffRepository) {}

  async list(status: HandoffStatus | 'all', limit: number, cursor?: string): Promise<HandoffPage> {
    const rows = await this.handoffs.list(status === 'all' ? undefined : status, limit, cursor === undefined ? undefined : decodeCursor(cursor));
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return rows.length > limit && last ? { items, next: { at: last.createdAt, id: last.id } } : { items };
  }

  async get(id: string): Promise<Handoff> {
    const h = await this.handoffs.findById(id);
    if (!h) throw notFound(id);
    return h;
  }
}

/** Opaque cursor: base64url of `<epoch ms>:<id>`. */
export function encodeCursor(c: HandoffCursor): string {
  return Buffer.from(`${c.at.getTime()}:${c.id}`).toString('base64url');
}

function decodeCursor(cursor: string): HandoffCursor {
  const text = Buffer.from(cursor, 'base64url').toString();
  const i = text.indexOf(':');
  const ms = Number(text.slice(0, i));
  if (i <= 0 || !Number.isSafeInteger(ms) || i === text.length - 1) throw new DomainException('INVALID_CURSOR', 400, 'cursor is not a nextCursor of this listing');
  return { at: new Date(ms), id: text.slice(i + 1) };
}
