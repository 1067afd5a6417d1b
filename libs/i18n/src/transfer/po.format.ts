import { po, type GetTextTranslation, type GetTextTranslations } from 'gettext-parser';
import { formatIcuPlural, parseIcuPlural, type PluralCategory } from './icu-plural';
import { categoriesOfHeader, pluralFormsFor, pluralFormsHeader } from './plural-forms';
import { TransferFormatError, type ParsedTransfer, type TransferDocument, type TransferEntry } from './transfer.model';

/** Header that carries the export time, read back to find human edits made after it. */
export const EXPORTED_AT_HEADER = 'X-Flowplane-Exported-At';
/** Flag naming the ICU variable of a plural entry (gettext plurals have none). */
const PLURAL_FLAG = 'icu-plural:';

/** msgid and msgid_plural of a stored source text: the `one`/`other` branches of a plural, else the text. */
function sourcePair(source: string | undefined, key: string): [string, string] {
  const plural = source === undefined ? null : parseIcuPlural(source);
  if (plural && plural.branches.one !== undefined && Object.keys(plural.branches).length === 2) {
    return [plural.branches.one, plural.branches.other ?? ''];
  }
  const text = source || key;
  return [text, text];
}

/** The source text an entry states: what `sourcePair` came from, or undefined when msgid is the key. */
function sourceOfPair(msgid: string, msgidPlural: string | undefined, key: string, variable: string): string | undefined {
  if (msgidPlural !== undefined && msgidPlural !== msgid) {
    return formatIcuPlural({ variable, branches: { one: msgid, other: msgidPlural } });
  }
  return msgid === key ? undefined : msgid;
}

/** What a PO export and re-import make of a stored source text: the value an import compares with. */
export function poComparableSource(source: string | undefined, key: string): string | undefined {
  const variable = (source && parseIcuPlural(source)?.variable) || 'count';
  const [one, other] = sourcePair(source, key);
  return sourceOfPair(one, other, key, variable);
}

function gettextDate(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}+0000`;
}

/**
 * gettext PO, bilingual: msgctxt is the key (so equal source texts stay apart), msgid the
 * source-locale text, `#.` the translator note. A value that is one ICU plural argument with
 * exactly the locale's gettext categories becomes msgid_plural and msgstr[n]; any other value,
 * plurals included, stays ICU text in msgstr[0].
 */
export function toPo(doc: TransferDocument): string {
  const forms = pluralFormsFor(doc.locale);
  const headers: Record<string, string> = {
    'Project-Id-Version': doc.ns || '(default namespace)',
    Language: doc.locale,
    'MIME-Version': '1.0',
    'Content-Type': 'text/plain; charset=UTF-8',
    'Content-Transfer-Encoding': '8bit',
    'X-Generator': 'Flowplane i18n',
    'X-Source-Language': doc.sourceLocale,
  };
  if (forms) headers['Plural-Forms'] = pluralFormsHeader(forms);
  if (doc.exportedAt) {
    headers['POT-Creation-Date'] = gettextDate(doc.exportedAt);
    headers[EXPORTED_AT_HEADER] = doc.exportedAt;
  }
  const translations: GetTextTranslations['translations'] = { '': { '': { msgid: '', msgstr: [''] } } };
  for (const entry of doc.entries) {
    const [msgid, msgidPlural] = sourcePair(entry.source, entry.key);
    const item: GetTextTranslation = { msgctxt: entry.key, msgid, msgstr: [entry.value ?? ''] };
    const plural = entry.value === undefined ? null : parseIcuPlural(entry.value);
    const categories = Object.keys(plural?.branches ?? {});
    if (plural && forms && categories.length === forms.categories.length && forms.categories.every((c) => categories.includes(c))) {
      item.msgid_plural = msgidPlural;
      item.msgstr = forms.categories.map((c) => plural.branches[c] ?? '');
      item.comments = { flag: `${PLURAL_FLAG}${plural.variable}` };
    } else if (forms && entry.value === undefined && entry.source !== undefined && parseIcuPlural(entry.source)) {
      // An untranslated plural still offers the translator every form of the target language.
      item.msgid_plural = msgidPlural;
      item.msgstr = forms.categories.map(() => '');
      item.comments = { flag: `${PLURAL_FLAG}${parseIcuPlural(entry.source)?.variable}` };
    }
    if (entry.note) item.comments = { ...item.comments, extracted: entry.note };
    translations[entry.key] = { [msgid]: item };
  }
  return po.compile({ charset: 'utf-8', headers, translations }, { foldLength: 0, sort: false }).toString('utf8');
}

/** Reads the fault position gettext-parser puts in its messages ("... at line 3"). */
function poError(error: unknown): TransferFormatError {
  const message = error instanceof Error ? error.message : String(error);
  const line = /line (\d+)/i.exec(message);
  return new TransferFormatError('po', message, line ? Number(line[1]) : undefined);
}

function flagValue(flags: string | undefined, prefix: string): string | undefined {
  return flags
    ?.split(',')
    .map((f) => f.trim())
    .find((f) => f.startsWith(prefix))
    ?.slice(prefix.length);
}

/**
 * Parses a PO file. Fuzzy and obsolete entries are untranslated (gettext's own rule: a fuzzy
 * string needs review before it is used). Plural entries become ICU plural messages through the
 * file's own `Plural-Forms` header, so files from any tool map their forms to CLDR categories.
 */
export function fromPo(text: string, localeHint?: string): ParsedTransfer {
  let table: GetTextTranslations;
  try {
    table = po.parse(text, { validation: true });
  } catch (error) {
    throw poError(error);
  }
  const headers = table.headers ?? {};
  const locale = headers.Language || headers.language || undefined;
  const pluralLocale = localeHint ?? locale ?? 'en';
  const categories = categoriesOfHeader(headers['Plural-Forms'], pluralLocale);
  const entries: TransferEntry[] = [];
  for (const [msgctxt, byId] of Object.entries(table.translations)) {
    for (const [msgid, item] of Object.entries(byId)) {
      if (!msgctxt && !msgid) continue; // the header
      const key = msgctxt || msgid;
      const flags = item.comments?.flag;
      const variable = flagValue(flags, PLURAL_FLAG) || 'count';
      const entry: TransferEntry = { key };
      const source = sourceOfPair(msgid, item.msgid_plural, key, variable);
      if (source !== undefined) entry.source = source;
      if (item.comments?.extracted) entry.note = item.comments.extracted;
      const fuzzy = flagValue(flags, 'fuzzy') !== undefined;
      if (!fuzzy && item.msgstr.some((s) => s !== '')) {
        if (item.msgid_plural !== undefined && categories) {
          const branches: Partial<Record<PluralCategory, string>> = {};
          item.msgstr.forEach((s, i) => {
            const category = categories[i];
            if (category && branches[category] === undefined) branches[category] = s;
          });
          if (branches.other === undefined) branches.other = item.msgstr[item.msgstr.length - 1];
          entry.value = formatIcuPlural({ variable, branches });
        } else {
          entry.value = item.msgstr[0];
        }
      }
      entries.push(entry);
    }
  }
  return { locale, sourceLocale: headers['X-Source-Language'] || undefined, exportedAt: headers[EXPORTED_AT_HEADER] || undefined, entries };
}
