import { isoOrNull, storedTime } from '../../shared/stored-time';
import type { MessageViewDto } from '../dto/message.dto';
import type { TranslationRowViewDto } from '../dto/translation-row.dto';
import type { Message, TranslationRow } from './translation-row.entity';

export function presentMessage(m: Message): MessageViewDto {
  return {
    ns: m.ns,
    key: m.key,
    locale: m.locale,
    value: m.value,
    ...(m.provenance ? { provenance: { ...m.provenance } } : {}),
    createdAt: isoOrNull(storedTime(m.createdAt)),
    updatedAt: isoOrNull(storedTime(m.updatedAt)),
  };
}

export function presentRow(r: TranslationRow): TranslationRowViewDto {
  return {
    ns: r.ns,
    key: r.key,
    translations: r.translations,
    provenance: r.provenance as Record<string, unknown>,
    pending: r.pending as Record<string, unknown>,
    ...(r.context !== undefined ? { context: r.context } : {}),
    modules: r.modules,
  };
}

/** The message at `locale` of a row, or null when the row has no text there. */
export function messageOf(r: TranslationRow, locale: string): Message | null {
  const value = r.translations[locale];
  if (value === undefined) return null;
  const stamps = r.stamps[locale];
  return {
    ns: r.ns,
    key: r.key,
    locale,
    value,
    ...(r.provenance[locale] ? { provenance: r.provenance[locale] } : {}),
    createdAt: stamps?.createdAt ?? r.createdAt,
    updatedAt: stamps?.updatedAt ?? r.updatedAt,
  };
}
