import { Inject, Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '../domain/cursor';
import { presentMessage, presentRow } from '../domain/translation.presenter';
import type { ListMessagesQueryDto, MessagePageDto } from '../dto/message.dto';
import type { ListTranslationsQueryDto, TranslationPageDto } from '../dto/translation-row.dto';
import { TranslationRepository } from '../persistence/translation.repository';

const DEFAULT_LIMIT = 100;

/** Listings: `GET /admin/i18n/messages` (cells) and `GET /admin/i18n/translations` (rows), both by cursor. */
@Injectable()
export class TranslationQueries {
  constructor(@Inject(TranslationRepository) private readonly repository: TranslationRepository) {}

  /** Messages in (namespace, key, locale) order. */
  async messages(q: ListMessagesQueryDto): Promise<MessagePageDto> {
    const limit = q.limit ?? DEFAULT_LIMIT;
    const after = q.cursor ? decodeCursor(q.cursor, 3) : undefined;
    const items = await this.repository.messages(
      {
        ...(q.ns !== undefined ? { ns: q.ns } : {}),
        ...(q.locale ? { locale: q.locale } : {}),
        ...(q.q ? { q: q.q } : {}),
        ...(after ? { after: { ns: after[0], key: after[1] }, afterLocale: after[2] } : {}),
      },
      limit + 1,
    );
    const page = items.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(presentMessage),
      nextCursor: items.length > limit && last ? encodeCursor([last.ns, last.key, last.locale]) : null,
    };
  }

  /** Translation rows sorted by namespace and key. */
  async rows(q: ListTranslationsQueryDto): Promise<TranslationPageDto> {
    const limit = q.limit ?? DEFAULT_LIMIT;
    const after = q.cursor ? decodeCursor(q.cursor, 2) : undefined;
    const rows = await this.repository.list(
      {
        ...(q.ns !== undefined ? { ns: q.ns } : {}),
        ...(q.prefix ? { prefix: q.prefix } : {}),
        ...(q.q ? { q: q.q } : {}),
        ...(q.missing ? { missing: q.missing } : {}),
        ...(after ? { after: { ns: after[0], key: after[1] } } : {}),
      },
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map(presentRow), nextCursor: rows.length > limit && last ? encodeCursor([last.ns, last.key]) : null };
  }
}
