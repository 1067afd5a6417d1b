import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { lineAndColumn, TransferFormatError, type ParsedTransfer, type TransferDocument } from './transfer.model';

/** Nested export: keys split on dots, as i18next and Tolgee's nested JSON do. */
export function toJson(doc: TransferDocument, nested = false): string {
  const translated = doc.entries.filter((e) => e.value !== undefined);
  if (!nested) return `${JSON.stringify(Object.fromEntries(translated.map((e) => [e.key, e.value])), null, 2)}\n`;
  const root: Record<string, unknown> = {};
  for (const { key, value } of translated) {
    const parts = key.split('.');
    if (parts.some((p) => p === '')) throw new TransferFormatError('json', `key "${key}" has an empty segment and cannot be nested; export flat JSON`);
    let node = root;
    for (const [i, part] of parts.entries()) {
      const last = i === parts.length - 1;
      const existing = node[part];
      if (last ? existing !== undefined : typeof existing === 'string') {
        throw new TransferFormatError('json', `key "${key}" collides with another key's nesting; export flat JSON`);
      }
      if (last) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    }
  }
  return `${JSON.stringify(root, null, 2)}\n`;
}

/**
 * Reads flat (`{"a.b": "x"}`) or nested (`{"a": {"b": "x"}}`) JSON, or a mix: nested objects join
 * their keys with dots. Values must be strings; an empty string is untranslated.
 */
export function fromJson(text: string): ParsedTransfer {
  const errors: ParseError[] = [];
  const data: unknown = parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length > 0) {
    const { line, column } = lineAndColumn(text, errors[0].offset);
    throw new TransferFormatError('json', `${printParseErrorCode(errors[0].error)} at line ${line}, column ${column}`, line, column);
  }
  return fromJsonValue(data);
}

/** Reads an already parsed JSON document (a body the platform's JSON parser read). */
export function fromJsonValue(data: unknown): ParsedTransfer {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new TransferFormatError('json', 'a translation file is a JSON object of keys to strings', 1, 1);
  }
  const entries: ParsedTransfer['entries'] = [];
  const seen = new Set<string>();
  const walk = (node: Record<string, unknown>, prefix: string): void => {
    for (const [name, value] of Object.entries(node)) {
      const key = prefix ? `${prefix}.${name}` : name;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        walk(value as Record<string, unknown>, key);
      } else if (typeof value !== 'string') {
        throw new TransferFormatError('json', `value of "${key}" must be a string`);
      } else {
        if (seen.has(key)) throw new TransferFormatError('json', `key "${key}" appears twice (flat and nested)`);
        seen.add(key);
        entries.push(value === '' ? { key } : { key, value });
      }
    }
  };
  walk(data as Record<string, unknown>, '');
  return { entries };
}
