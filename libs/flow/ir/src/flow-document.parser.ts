import { parseDocument, stringify } from 'yaml';
import type { ValidationIssue } from './flow-document';
import { FLOW_ISSUE_CODES } from './flow-issue.codes';
import { jsonPointer } from './json-pointer.util';
import { isRecord } from './value.util';

/** Default of `FLOW_MAX_DOCUMENT_BYTES`: 1 MiB. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 1024 * 1024;

/** Anchors and aliases beyond this many are refused (an alias bomb expands exponentially). */
const MAX_YAML_ALIASES = 100;

export type FlowDocumentParseErrorCode =
  | typeof FLOW_ISSUE_CODES.TOO_LARGE
  | typeof FLOW_ISSUE_CODES.INVALID_ENCODING
  | typeof FLOW_ISSUE_CODES.INVALID_JSON
  | typeof FLOW_ISSUE_CODES.INVALID_YAML
  | typeof FLOW_ISSUE_CODES.NOT_A_MAPPING;

export interface ParseFlowDocumentOptions {
  /** Larger bodies are refused with TOO_LARGE before parsing; default 1 MiB. */
  maxBytes?: number;
}

/** A document body that cannot be used. The HTTP layer answers 413 for TOO_LARGE and 400 otherwise. */
export class FlowDocumentParseError extends Error {
  override readonly name = 'FlowDocumentParseError';

  constructor(
    readonly code: FlowDocumentParseErrorCode,
    message: string,
    /** 1-based position in the text, when known. */
    readonly line?: number,
    readonly column?: number,
    /** JSON pointer of the offending value, when the text parsed. */
    readonly path = '',
  ) {
    super(message);
  }

  /** The error as a validation issue (for a 400 body's details). */
  toIssue(): ValidationIssue {
    return { path: this.path, message: this.message, severity: 'error', code: this.code };
  }
}

/**
 * Parses a flow or spec document body. `application/json` and `*+json` bodies are parsed as strict
 * JSON; anything else (YAML media types, text/plain, none) as YAML 1.2 with the core schema, which also
 * reads JSON. The result must be a mapping. Throws FlowDocumentParseError.
 */
export function parseFlowDocumentText(text: string | Uint8Array, contentType?: string, options: ParseFlowDocumentOptions = {}): Record<string, unknown> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
  const bytes = typeof text === 'string' ? Buffer.byteLength(text, 'utf8') : text.byteLength;
  if (bytes > maxBytes) {
    throw new FlowDocumentParseError(FLOW_ISSUE_CODES.TOO_LARGE, `the document is ${bytes} bytes; at most ${maxBytes} are allowed`);
  }
  const source = typeof text === 'string' ? text.replace(/^\uFEFF/, '') : decodeUtf8(text);
  const value = isJsonMediaType(contentType) ? parseJson(source) : parseYaml(source);
  if (!isRecord(value)) {
    throw new FlowDocumentParseError(FLOW_ISSUE_CODES.NOT_A_MAPPING, `the document must be a mapping (an object with fields such as nodes and edges), not ${describe(value)}`);
  }
  return value;
}

/** Writes a document as JSON (2-space indent) or YAML 1.2 text; parsing the text gives the document back. */
export function stringifyFlowDocumentText(doc: unknown, format: 'json' | 'yaml'): string {
  if (format === 'json') return JSON.stringify(doc, null, 2) + '\n';
  return stringify(doc, { version: '1.2', aliasDuplicateObjects: false, lineWidth: 0 });
}

function isJsonMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type === 'text/json' || type.endsWith('+json');
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new FlowDocumentParseError(FLOW_ISSUE_CODES.INVALID_ENCODING, 'the document is not valid UTF-8');
  }
}

function parseJson(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch (e) {
    const message = (e as Error).message;
    const at = /position (\d+)/.exec(message);
    const { line, column } = at ? lineColumn(source, Number(at[1])) : { line: undefined, column: undefined };
    const where = line !== undefined ? ` at line ${line}, column ${column}` : '';
    throw new FlowDocumentParseError(FLOW_ISSUE_CODES.INVALID_JSON, `invalid JSON${where}: ${message}`, line, column);
  }
}

function parseYaml(source: string): unknown {
  const doc = parseDocument(source, { version: '1.2', schema: 'core', uniqueKeys: true, strict: true, prettyErrors: true });
  const [first] = doc.errors;
  if (first) {
    const pos = first.linePos?.[0];
    // yaml appends a code excerpt after the first line; keep only the sentence.
    const sentence = first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '');
    const where = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
    const more = doc.errors.length > 1 ? ` (and ${doc.errors.length - 1} more)` : '';
    throw new FlowDocumentParseError(FLOW_ISSUE_CODES.INVALID_YAML, `invalid YAML${where}: ${sentence}${more}`, pos?.line, pos?.col);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    throw new FlowDocumentParseError(FLOW_ISSUE_CODES.INVALID_YAML, `invalid YAML: ${(e as Error).message}`);
  }
  const bad = nonJsonValue(value, []);
  if (bad) {
    throw new FlowDocumentParseError(FLOW_ISSUE_CODES.INVALID_YAML, `invalid value at ${bad.path}: ${bad.what} cannot be represented in JSON`, undefined, undefined, bad.path);
  }
  return value;
}

/** YAML can express values JSON cannot (`.inf`, `.nan`, binary); documents must stay JSON. */
function nonJsonValue(value: unknown, path: Array<string | number>): { path: string; what: string } | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { path: jsonPointer(...path), what: String(value) };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = nonJsonValue(value[i], [...path, i]);
      if (bad) return bad;
    }
    return undefined;
  }
  if (isRecord(value)) {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return { path: jsonPointer(...path), what: 'a non-plain value' };
    for (const [k, v] of Object.entries(value)) {
      const bad = nonJsonValue(v, [...path, k]);
      if (bad) return bad;
    }
    return undefined;
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  return { path: jsonPointer(...path), what: typeof value };
}

function lineColumn(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'an empty document';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}
