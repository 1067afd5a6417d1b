import { I18nException } from '../../i18n.exception';

/** Opaque page cursors: base64url of the JSON list of the last item's sort fields. */
export function encodeCursor(fields: string[]): string {
  return Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url');
}

/** Decodes a cursor of `arity` string fields; 400 naming `cursor` when it is not one of ours. */
export function decodeCursor(cursor: string, arity: number): string[] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === arity && parsed.every((f) => typeof f === 'string')) return parsed as string[];
  } catch {
    // falls through to the 400 below
  }
  throw I18nException.invalid([{ field: 'cursor', problems: ['cursor is not a cursor this service issued'] }]);
}
