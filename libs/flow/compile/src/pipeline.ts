import { readAsyncApi, writeAsyncApi } from './asyncapi';
import { readBusinessModel, writeBusinessModel } from './business-model';
import { readFormA, stringifyDocument, writeFormA, writeIrText } from './form-a';
import { readFormB, writeFormB } from './form-b';
import { isRecord } from './format-util';
import type { ApiModel, Diagnostic } from './model';
import { compileModel } from './modules-order';
import { readOpenApi, writeOpenApi } from './openapi';
import { parseSource, type SourceMap } from './source';
import { exportTools, type ToolDefinition, type ToolSource } from './tools-export';

/**
 * The compile pipeline end to end (issue 5 items 1, 2, 7, 8): a source text in any format is
 * parsed (line and column on failure), read into the IR, compiled (validation codes, module
 * order), and written to the target format. Every format goes through the IR; nothing converts
 * directly. Used by the HTTP routes and the CLI alike.
 */

/** Source formats. `flowdef` reads form A (`version`) or form B (`flowdef`), told apart by their keys. */
export const SOURCE_FORMATS = ['auto', 'flowdef', 'openapi', 'asyncapi', 'businessmodel', 'json', 'yaml'] as const;
export type SourceFormatName = (typeof SOURCE_FORMATS)[number];

/** Target formats: `flowdef` is form A, `flowgraph` form B; `json`/`yaml` the IR itself. */
export const TARGET_FORMATS = ['json', 'yaml', 'flowdef', 'flowgraph', 'openapi', 'asyncapi', 'businessmodel'] as const;
export type TargetFormatName = (typeof TARGET_FORMATS)[number];

export const TOOL_SELECTIONS: readonly ToolSource[] = ['actions', 'entities', 'commands', 'all'];

/** A name that is not a format: the message lists the valid ones (HTTP 400, CLI exit 2). */
export class UnknownFormatError extends Error {
  constructor(
    readonly kind: 'source' | 'target' | 'selection',
    readonly value: string,
    readonly valid: readonly string[],
  ) {
    super(`unknown ${kind === 'selection' ? 'tool selection' : `${kind} format`} "${value}"; valid: ${valid.join(', ')}`);
    this.name = 'UnknownFormatError';
  }
}

export function sourceFormat(name: string | undefined): SourceFormatName {
  const n = (name ?? 'auto').toLowerCase();
  if (!(SOURCE_FORMATS as readonly string[]).includes(n)) throw new UnknownFormatError('source', name ?? '', SOURCE_FORMATS);
  return n as SourceFormatName;
}

export function targetFormat(name: string | undefined): TargetFormatName {
  const n = (name ?? '').toLowerCase();
  if (!(TARGET_FORMATS as readonly string[]).includes(n)) throw new UnknownFormatError('target', name ?? '', TARGET_FORMATS);
  return n as TargetFormatName;
}

export function toolSelection(name: string | undefined): ToolSource {
  const n = (name ?? 'all').toLowerCase();
  if (!(TOOL_SELECTIONS as readonly string[]).includes(n)) throw new UnknownFormatError('selection', name ?? '', TOOL_SELECTIONS);
  return n as ToolSource;
}

/** Which concrete reader a parsed value needs. */
export type DetectedFormat = 'forma' | 'formb' | 'openapi' | 'asyncapi' | 'businessmodel' | 'ir';

/** Tells the format of a parsed document from its top-level keys. */
export function detectFormat(value: unknown): DetectedFormat {
  if (!isRecord(value)) return 'forma';
  if ('openapi' in value || 'swagger' in value) return 'openapi';
  if ('asyncapi' in value) return 'asyncapi';
  if ('flowdef' in value) return 'formb';
  if ('domains' in value && !('modules' in value)) return 'businessmodel';
  return 'forma';
}

export interface ReadDocumentOptions {
  from?: SourceFormatName;
  /** FLOW_MAX_DOCUMENT_BYTES: larger texts give TOO_LARGE without parsing. */
  maxBytes?: number;
}

export interface ReadDocumentResult {
  /** Null when the text did not parse or is not a document of the format. */
  model: ApiModel | null;
  /** Reader diagnostics (paths into the source), then compile diagnostics. */
  diagnostics: Diagnostic[];
  /** The reader used. */
  format?: DetectedFormat;
  map?: SourceMap;
}

/** Parses, reads and compiles a source text. Never throws for bad input (only for an unknown format name). */
export function readDocument(text: string | Uint8Array, options: ReadDocumentOptions = {}): ReadDocumentResult {
  const from = options.from ?? 'auto';
  const parsed = parseSource(text, { maxBytes: options.maxBytes, format: from === 'json' ? 'json' : 'auto' });
  if (parsed.diagnostics.some((d) => d.severity === 'error')) return { model: null, diagnostics: parsed.diagnostics };
  const detected = detectFormat(parsed.value);
  const format: DetectedFormat =
    from === 'auto' ? detected : from === 'flowdef' ? (detected === 'formb' ? 'formb' : 'forma') : from === 'json' || from === 'yaml' ? 'ir' : from;
  const read = readerOf(format)(parsed.value, parsed.map);
  if (!read.model) return { model: null, diagnostics: read.diagnostics, format, map: parsed.map };
  // Compile diagnostics point into the IR; their positions are meaningful when the source is form A (or the IR).
  const compiled = compileModel(read.model, { map: format === 'forma' || format === 'ir' ? parsed.map : undefined, declaresEvents: format !== 'openapi' });
  return { model: compiled.model, diagnostics: [...read.diagnostics, ...compiled.diagnostics], format, map: parsed.map };
}

function readerOf(format: DetectedFormat): (value: unknown, map?: SourceMap) => { model: ApiModel | null; diagnostics: Diagnostic[] } {
  switch (format) {
    case 'openapi':
      return (v, map) => (isRecord(v) ? readOpenApi(v, { map }) : notMapping('an OpenAPI'));
    case 'asyncapi':
      return (v, map) => (isRecord(v) ? readAsyncApi(v, { map }) : notMapping('an AsyncAPI'));
    case 'businessmodel':
      return (v, map) => (isRecord(v) ? readBusinessModel(v, { map }) : notMapping('a business model'));
    case 'formb':
      return (v, map) => (isRecord(v) ? readFormB(v, { map }) : notMapping('a form B'));
    default:
      return (v, map) => readFormA(v, { map });
  }
}

function notMapping(what: string): { model: null; diagnostics: Diagnostic[] } {
  return { model: null, diagnostics: [{ code: 'FMT', severity: 'error', message: `${what} document must be a mapping`, path: '' }] };
}

/** Media type of each target. */
export const CONTENT_TYPES: Record<TargetFormatName, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
  flowdef: 'application/yaml',
  flowgraph: 'application/yaml',
  openapi: 'application/vnd.oai.openapi+json',
  asyncapi: 'application/yaml',
  businessmodel: 'application/yaml',
};

export interface WriteResult {
  text: string;
  contentType: string;
  diagnostics: Diagnostic[];
}

/** Writes the IR in a target format (as JSON or YAML text; `syntax` overrides the target's default). */
export function writeDocument(model: ApiModel, to: TargetFormatName, syntax?: 'json' | 'yaml'): WriteResult {
  const as = (fallback: 'json' | 'yaml') => syntax ?? fallback;
  const type = (s: 'json' | 'yaml', fallback: string) => (syntax ? (s === 'json' ? 'application/json' : 'application/yaml') : fallback);
  switch (to) {
    case 'json':
    case 'yaml':
      return { text: writeIrText(model, as(to)), contentType: type(as(to), CONTENT_TYPES[to]), diagnostics: [] };
    case 'flowdef':
      return { text: stringifyDocument(writeFormA(model), as('yaml')), contentType: type(as('yaml'), CONTENT_TYPES.flowdef), diagnostics: [] };
    case 'flowgraph': {
      const r = writeFormB(model);
      return { text: stringifyDocument(r.document, as('yaml')), contentType: type(as('yaml'), CONTENT_TYPES.flowgraph), diagnostics: r.diagnostics };
    }
    case 'openapi': {
      const r = writeOpenApi(model);
      return { text: stringifyDocument(r.document, as('json')), contentType: type(as('json'), CONTENT_TYPES.openapi), diagnostics: r.diagnostics };
    }
    case 'asyncapi': {
      const r = writeAsyncApi(model);
      return { text: stringifyDocument(r.document, as('yaml')), contentType: type(as('yaml'), CONTENT_TYPES.asyncapi), diagnostics: r.diagnostics };
    }
    case 'businessmodel': {
      const r = writeBusinessModel(model);
      return { text: stringifyDocument(r.document, as('yaml')), contentType: type(as('yaml'), CONTENT_TYPES.businessmodel), diagnostics: r.diagnostics };
    }
  }
}

export interface ConvertResult {
  /** Absent when the source could not be read (see diagnostics). */
  output?: WriteResult;
  /** Source, compile and writer diagnostics. */
  diagnostics: Diagnostic[];
  format?: DetectedFormat;
}

/** Source text to target text through the IR. */
export function convertDocument(text: string | Uint8Array, options: ReadDocumentOptions & { to: TargetFormatName; syntax?: 'json' | 'yaml' }): ConvertResult {
  const read = readDocument(text, options);
  if (!read.model) return { diagnostics: read.diagnostics, format: read.format };
  if (options.to === 'flowgraph' && !read.model.flow && read.model.workflows.length === 0) {
    const nothing: Diagnostic = { code: 'FMT', severity: 'error', message: 'a flow graph (form B) is drawn from workflows or a form B graph, and this document has neither', path: '/workflows' };
    return { diagnostics: [...read.diagnostics, nothing], format: read.format };
  }
  const output = writeDocument(read.model, options.to, options.syntax);
  return { output, diagnostics: [...read.diagnostics, ...output.diagnostics], format: read.format };
}

/**
 * What `flowctl validate` and the validate route report: the read and compile diagnostics, plus a
 * TOOL_NAME warning for every action or entity whose function-calling tool would be renamed.
 */
export function validateDocument(text: string | Uint8Array, options: ReadDocumentOptions = {}): ReadDocumentResult {
  const read = readDocument(text, options);
  if (!read.model) return read;
  const map = read.format === 'forma' || read.format === 'ir' ? read.map : undefined;
  const renamed = exportTools(read.model, 'all').diagnostics.filter((d) => d.code === 'TOOL_NAME');
  for (const d of renamed) {
    const position = map?.position(d.path);
    if (position) d.position = position;
  }
  return { ...read, diagnostics: [...read.diagnostics, ...renamed] };
}

/** Function-calling tools of a source text. */
export function toolsOfDocument(text: string | Uint8Array, options: ReadDocumentOptions & { select?: ToolSource }): { tools: ToolDefinition[]; diagnostics: Diagnostic[] } {
  const read = readDocument(text, options);
  // A document that did not read already says why (PARSE, FDL001, ...): no second "nil" for it.
  if (!read.model && read.diagnostics.length) return { tools: [], diagnostics: read.diagnostics };
  const exported = exportTools(read.model, options.select ?? 'all');
  return { tools: exported.tools, diagnostics: [...read.diagnostics, ...exported.diagnostics] };
}

/** Whether diagnostics contain an error (or, with `strict`, any diagnostic). */
export function hasErrors(diagnostics: readonly Diagnostic[], strict = false): boolean {
  return diagnostics.some((d) => strict || d.severity === 'error');
}
