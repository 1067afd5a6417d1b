import { js2xliff, xliff2js, type XliffJs, type XliffUnit } from 'xliff';
import { TransferFormatError, type ParsedTransfer, type TransferDocument, type TransferEntry } from './transfer.model';

/** The `<file id>` of the empty namespace (an id must not be empty); imports take `?ns=` anyway. */
const DEFAULT_FILE_ID = 'default';

/**
 * XLIFF 2.0: one `<file>` per namespace, one `<unit id>` per key with the source-locale text as
 * `<source>`, the locale's text as `<target>` (left out when untranslated) and the translator note.
 * ICU messages travel as text, which Weblate, Crowdin and Tolgee all read as ICU.
 */
export async function toXliff(doc: TransferDocument): Promise<string> {
  const units: Record<string, XliffUnit> = {};
  for (const entry of doc.entries) {
    const unit: XliffUnit = { source: entry.source ?? '' };
    if (entry.value !== undefined) unit.target = entry.value;
    if (entry.note) unit.note = entry.note;
    units[entry.key] = unit;
  }
  const js: XliffJs = { sourceLanguage: doc.sourceLocale, targetLanguage: doc.locale, resources: { [doc.ns || DEFAULT_FILE_ID]: units } };
  return `${await js2xliff(js)}\n`;
}

function text(value: string | unknown[] | undefined, key: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  // Inline elements (<ph>, <pc>) are not part of our messages: refusing them keeps a round trip exact.
  throw new TransferFormatError('xliff', `unit "${key}" holds inline markup elements; write placeholders as text`);
}

/**
 * A unit's translator note as one string: the parser hands back an array when a unit has several
 * `<note>` elements (joined one per line, as a translator would read them) and drops inline markup.
 */
function noteText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return undefined;
  const notes = value.filter((n): n is string => typeof n === 'string' && n.trim() !== '');
  return notes.length ? notes.join('\n') : undefined;
}

function xliffError(error: unknown): TransferFormatError {
  const message = error instanceof Error ? error.message : String(error);
  const at = /Line: (\d+)\s+Column: (\d+)/.exec(message);
  const first = message.split('\n')[0];
  // sax counts lines from 0 and columns from 1.
  return at ? new TransferFormatError('xliff', `${first} at line ${Number(at[1]) + 1}, column ${at[2]}`, Number(at[1]) + 1, Number(at[2])) : new TransferFormatError('xliff', first);
}

/** Reads XLIFF 2.0 (units of every `<file>` and nested `<group>`). An empty target is untranslated. */
export async function fromXliff(xml: string): Promise<ParsedTransfer> {
  if (!/<xliff\b[^>]*\bversion\s*=\s*["']2\.\d["']/.test(xml)) {
    if (/<xliff\b/.test(xml)) throw new TransferFormatError('xliff', 'only XLIFF 2.0 is supported (the <xliff> element has no version="2.0")');
  }
  let js: XliffJs;
  try {
    js = await xliff2js(xml);
  } catch (error) {
    throw xliffError(error);
  }
  if (!js || typeof js.resources !== 'object') throw new TransferFormatError('xliff', 'the document has no <xliff> root element', 1, 1);
  const entries: TransferEntry[] = [];
  const walk = (units: Record<string, XliffUnit>): void => {
    for (const [key, unit] of Object.entries(units)) {
      if (unit.groupUnits) {
        walk(unit.groupUnits);
        continue;
      }
      const entry: TransferEntry = { key };
      const source = text(unit.source, key);
      const target = text(unit.target, key);
      if (source) entry.source = source;
      if (target) entry.value = target;
      const note = noteText(unit.note);
      if (note) entry.note = note;
      entries.push(entry);
    }
  };
  for (const units of Object.values(js.resources)) walk(units);
  return { locale: js.targetLanguage || undefined, sourceLocale: js.sourceLanguage || undefined, entries };
}
