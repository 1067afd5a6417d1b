import { fromJson, toJson } from './json.format';
import { fromPo, poComparableSource, toPo } from './po.format';
import type { ParsedTransfer, TransferDocument, TransferFormat } from './transfer.model';
import { fromXliff, toXliff } from './xliff.format';

/** Media type and file extension of each format's export. */
export const FORMAT_MEDIA: Record<TransferFormat, { contentType: string; extension: string }> = {
  json: { contentType: 'application/json; charset=utf-8', extension: 'json' },
  xliff: { contentType: 'application/xliff+xml; charset=utf-8', extension: 'xlf' },
  po: { contentType: 'text/x-gettext-translation; charset=utf-8', extension: 'po' },
};

export async function serialize(format: TransferFormat, doc: TransferDocument, options: { nested?: boolean } = {}): Promise<string> {
  if (format === 'json') return toJson(doc, options.nested);
  if (format === 'xliff') return toXliff(doc);
  return toPo(doc);
}

export async function parseTransfer(format: TransferFormat, text: string, localeHint?: string): Promise<ParsedTransfer> {
  if (format === 'json') return fromJson(text);
  if (format === 'xliff') return fromXliff(text);
  return fromPo(text, localeHint);
}

/**
 * The source text a file of this format states for a stored source text, once exported and read
 * back: an import compares it with what the file says to find files made from an older source.
 * JSON carries no source (undefined: nothing to compare).
 */
export function comparableSource(format: TransferFormat, source: string | undefined, key: string): string | undefined {
  if (format === 'json') return undefined;
  if (format === 'xliff') return source || undefined;
  return poComparableSource(source, key);
}
