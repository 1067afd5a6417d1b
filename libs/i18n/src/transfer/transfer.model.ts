/** The file formats translators exchange with Weblate, Crowdin, Tolgee and gettext tools. */
export const TRANSFER_FORMATS = ['json', 'xliff', 'po'] as const;
export type TransferFormat = (typeof TRANSFER_FORMATS)[number];

/** One key of an exported or imported file, independent of the format. */
export interface TransferEntry {
  key: string;
  /** Text in the file's target locale; `undefined` means untranslated (never imported). */
  value?: string;
  /** Source-locale text the file was made from, as the file states it (bilingual formats only). */
  source?: string;
  /** Translator note (the row's `context`). */
  note?: string;
}

/** What an export writes: one namespace, one target locale, in key order. */
export interface TransferDocument {
  ns: string;
  locale: string;
  sourceLocale: string;
  entries: TransferEntry[];
  /** ISO time of the export: an import compares human edits made later with the file (conflicts). */
  exportedAt?: string;
}

/** What a file says once parsed; locales and export time only when the format carries them. */
export interface ParsedTransfer {
  locale?: string;
  sourceLocale?: string;
  exportedAt?: string;
  entries: TransferEntry[];
}

/** A file that is not well-formed in its format: the parser's message and, when known, where. */
export class TransferFormatError extends Error {
  constructor(
    readonly format: TransferFormat,
    message: string,
    /** 1-based line and column of the fault, when the parser reports them. */
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
    this.name = 'TransferFormatError';
  }
}

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}
