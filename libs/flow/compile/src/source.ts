import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { PIPELINE_CODES } from './codes';
import type { Diagnostic, SourcePosition } from './model';

/**
 * Source texts (issue 5 item 1): a YAML or JSON text becomes a plain value plus a source map that
 * turns a JSON pointer into a 1-based line and column. Problems come back as diagnostics, never as
 * throws: `PARSE` for unparseable text, `TOO_LARGE` for a text over the byte limit.
 *
 * JSON or YAML: with `format: 'auto'` (the default) a text whose first non-blank character is `{`
 * or `[` is JSON and is parsed strictly (a trailing comma is a PARSE error); anything else is YAML 1.2
 * (core schema). Both give a source map: JSON is valid YAML 1.2, so the map of a JSON text comes from
 * the same YAML document tree.
 */

/** Maps JSON pointers of the parsed value to positions in the text. */
export interface SourceMap {
  /**
   * Position of the item at `pointer` (`/events/2/entity_type`): the key of a mapping entry, the
   * start of a sequence item. When the pointer goes past what exists, the position of the nearest
   * existing ancestor. Undefined only when the text has no tree at all.
   */
  position(pointer: string): SourcePosition | undefined;
}

export type SourceFormat = 'auto' | 'json' | 'yaml';

export interface ParseSourceOptions {
  /** Texts larger than this many UTF-8 bytes give TOO_LARGE without parsing (pass FLOW_MAX_DOCUMENT_BYTES). */
  maxBytes?: number;
  /** Default `auto` (see above). */
  format?: SourceFormat;
  /** YAML aliases beyond this many are refused (alias bombs); default 100. */
  maxAliases?: number;
}

export interface ParsedSource {
  /** The plain value (undefined when the text did not parse; null for an empty text). */
  value: unknown;
  /** Empty when the text parsed. */
  diagnostics: Diagnostic[];
  /** Present when the text parsed. */
  map?: SourceMap;
  /** The format the text was read as. */
  format: 'json' | 'yaml';
}

/** Unescapes a JSON pointer into its reference tokens (`''` is the root, no tokens). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '' || pointer === '#') return [];
  const p = pointer.startsWith('#') ? decodeURIComponent(pointer.slice(1)) : pointer;
  return p
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Escapes one reference token (`a/b` to `a~1b`). */
export function escapePointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON pointer from tokens. */
export function jsonPointer(...tokens: Array<string | number>): string {
  return tokens.map((t) => '/' + escapePointerToken(t)).join('');
}

/** Parses a YAML or JSON text. Never throws. */
export function parseSource(text: string | Uint8Array, options: ParseSourceOptions = {}): ParsedSource {
  const bytes = typeof text === 'string' ? Buffer.byteLength(text, 'utf8') : text.byteLength;
  const declared = options.format ?? 'auto';
  if (options.maxBytes !== undefined && bytes > options.maxBytes) {
    return {
      value: undefined,
      format: declared === 'json' ? 'json' : 'yaml',
      diagnostics: [diag('TOO_LARGE', `the document is ${bytes} bytes; at most ${options.maxBytes} are allowed`)],
    };
  }
  let source: string;
  if (typeof text === 'string') source = text;
  else {
    try {
      source = new TextDecoder('utf-8', { fatal: true }).decode(text);
    } catch {
      return { value: undefined, format: declared === 'json' ? 'json' : 'yaml', diagnostics: [diag('PARSE', 'the document is not valid UTF-8 text', { line: 1, column: 1 })] };
    }
  }
  source = source.replace(/^\uFEFF/, '');
  const format = declared === 'auto' ? (/^\s*[[{]/.test(source) ? 'json' : 'yaml') : declared;
  return format === 'json' ? parseJsonSource(source) : parseYamlSource(source, options.maxAliases ?? 100);
}

function parseYamlSource(source: string, maxAliases: number): ParsedSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, keepSourceTokens: true, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    const err = doc.errors[0];
    const lp = err.linePos?.[0] ?? lineCounter.linePos(err.pos[0]);
    // yaml's pretty message appends a code excerpt after the first line; keep the first line.
    const message = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    return { value: undefined, format: 'yaml', diagnostics: [diag('PARSE', `invalid YAML: ${message}`, { line: lp.line, column: lp.col })] };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: maxAliases });
  } catch (e) {
    return { value: undefined, format: 'yaml', diagnostics: [diag('PARSE', `invalid YAML: ${(e as Error).message}`, { line: 1, column: 1 })] };
  }
  return { value: value ?? null, format: 'yaml', diagnostics: [], map: yamlSourceMap(doc, lineCounter) };
}

function parseJsonSource(source: string): ParsedSource {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (e) {
    const offset = jsonErrorOffset(source);
    const pos = offsetToPosition(source, offset);
    const message = (e as Error).message.replace(/, ".*" is not valid JSON$/s, '');
    return { value: undefined, format: 'json', diagnostics: [diag('PARSE', `invalid JSON: ${message}`, pos)] };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, keepSourceTokens: true });
  // A few valid JSON texts are not YAML (implicit keys over 1024 characters): then no positions.
  const map: SourceMap = doc.errors.length ? { position: () => undefined } : yamlSourceMap(doc, lineCounter);
  return { value, format: 'json', diagnostics: [], map };
}

function yamlSourceMap(doc: Document, lineCounter: LineCounter): SourceMap {
  const at = (offset: number): SourcePosition => {
    const lp = lineCounter.linePos(offset);
    return { line: lp.line, column: lp.col };
  };
  return {
    position(pointer: string): SourcePosition | undefined {
      let node: unknown = doc.contents;
      if (!node) return { line: 1, column: 1 };
      let best: number | undefined = startOf(node);
      for (const token of pointerTokens(pointer)) {
        if (isAlias(node)) node = node.resolve(doc);
        if (isMap(node)) {
          const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === token);
          if (!pair) break;
          best = startOf(pair.key) ?? startOf(pair.value) ?? best;
          node = pair.value;
        } else if (isSeq(node)) {
          if (!/^(0|[1-9]\d*)$/.test(token)) break;
          const item = node.items[Number(token)];
          if (item === undefined) break;
          best = startOf(item) ?? best;
          node = item;
        } else break;
      }
      return best === undefined ? undefined : at(best);
    },
  };
}

function startOf(node: unknown): number | undefined {
  const range = (node as YamlNode | null)?.range;
  return Array.isArray(range) ? range[0] : undefined;
}

/** 1-based line and column of a character offset. */
export function offsetToPosition(text: string, offset: number): SourcePosition {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Offset of the first syntax error of a text JSON.parse refused. Node 20's JSON.parse names no
 * position for most errors, so this walks the JSON grammar (RFC 8259) only to locate the error;
 * JSON.parse stays the parser and its message is the one reported.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const str = () => {
    if (text[i] !== '"') fail();
    i++;
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return;
        } else fail();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return;
        } else fail();
      }
    }
    if (c === '"') return str();
    const m = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail();
    else i += m[0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
  } catch (at) {
    if (typeof at === 'number') return at;
    throw at;
  }
  return text.length;
}

function diag(code: 'PARSE' | 'TOO_LARGE', message: string, position?: SourcePosition): Diagnostic {
  const d: Diagnostic = { code, severity: PIPELINE_CODES[code].severity, message, path: '' };
  if (position) d.position = position;
  return d;
}
