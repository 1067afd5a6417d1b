import type { DiagnosticSeverity } from './model';

/** One diagnostic code: its default severity and the one-line rule it stands for. */
export interface DiagnosticCodeInfo {
  severity: DiagnosticSeverity;
  rule: string;
}

/** The form A `version` values the converter reads (spec "Versioning": form A uses version 1.0). */
export const FORM_A_VERSIONS: readonly string[] = ['1.0'];

/** The spec's validation codes of the flow definition validator ("Errors" table), exactly. */
export const VALIDATION_CODES = {
  FDL001: { severity: 'error', rule: 'document is nil' },
  FDL002: { severity: 'warning', rule: 'version is empty' },
  FDL010: { severity: 'error', rule: 'event missing entity_type' },
  FDL011: { severity: 'error', rule: 'event missing action' },
  FDL012: { severity: 'warning', rule: 'event payload field has an unrecognised type' },
  FDL020: { severity: 'error', rule: 'workflow step missing id' },
  FDL021: { severity: 'warning', rule: 'step `next` references an unknown step' },
  FDL022: { severity: 'warning', rule: 'step `on_error` references an unknown step' },
  FDL023: { severity: 'warning', rule: 'step action references an unknown action' },
  FDL024: { severity: 'warning', rule: 'step event references an unknown event' },
  FDL030: { severity: 'warning', rule: 'module depends_on references an unknown module' },
  FDL040: { severity: 'warning', rule: 'schedule action references an unknown action' },
  FDL050: { severity: 'warning', rule: 'channel protocol is not recognised' },
  FDL060: { severity: 'warning', rule: 'action input or output field has an unrecognised type' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

export type ValidationCode = keyof typeof VALIDATION_CODES;

/** Codes of the pipeline itself (not FDL codes). */
export const PIPELINE_CODES = {
  /** The source text is neither YAML nor JSON. */
  PARSE: { severity: 'error', rule: 'source text cannot be parsed' },
  /** The source text is larger than the byte limit (FLOW_MAX_DOCUMENT_BYTES). */
  TOO_LARGE: { severity: 'error', rule: 'source text is larger than the allowed size' },
  /** A format-level problem met by a reader or writer (wrong shape, unknown key, dropped value). */
  FMT: { severity: 'warning', rule: 'format-level problem in the document' },
  /** Modules depend on each other in a cycle. */
  CYCLE: { severity: 'error', rule: 'module dependency cycle' },
  /** Two tool definitions got the same function name; the later one was renamed. */
  TOOL_NAME: { severity: 'warning', rule: 'tool name collision resolved by renaming' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

export type PipelineCode = keyof typeof PIPELINE_CODES;

/**
 * Checks beyond the spec's table, for documents that would compile to broken output (a schedule that
 * never fires, an operation no client can call, a graph the runtime refuses). Errors, so `flowctl
 * validate` exits 1 and the compile route answers 422; UNSUPPORTED_VERSION (the document is read as
 * 1.0, which may not be what its author meant) and UNKNOWN_PACKET are warnings: `--strict` fails on them.
 */
export const MODEL_CODES = {
  /** Form A `version` is set but is not a version the converter reads (FORM_A_VERSIONS). */
  UNSUPPORTED_VERSION: { severity: 'warning', rule: 'form A version is not one the converter reads (1.0)' },
  /** A schedule's cron is missing or not a valid five-field expression (UTC). */
  CRON: { severity: 'error', rule: 'schedule cron is not a valid five-field expression' },
  /** Two items of one section share a name (names are how items refer to each other). */
  DUPLICATE_NAME: { severity: 'error', rule: 'two modules, entities, events, actions, workflows or schedules share a name' },
  /** An entity (or form B packet) field has a type outside the field types table. */
  FIELD_TYPE: { severity: 'error', rule: 'entity field has an unrecognised type' },
  /** A field of type enum, or with an `enum` list, allows no value. */
  EMPTY_ENUM: { severity: 'error', rule: 'enum lists no values' },
  /** An action's `emits`, a workflow's `triggers` or a channel's publish or subscribe names no event of the document. */
  UNKNOWN_EVENT: { severity: 'error', rule: 'emits, triggers or a channel operation names an unknown event' },
  /** Two steps of one workflow share an id (`next` and `on_error` could not tell them apart). */
  DUPLICATE_STEP: { severity: 'error', rule: 'two steps of one workflow share an id' },
  /** An action's path does not start with "/". */
  HTTP_PATH: { severity: 'error', rule: 'action path does not start with "/"' },
  /** An action's method is not an HTTP method. */
  HTTP_METHOD: { severity: 'error', rule: 'action method is not an HTTP method' },
  /** Form B: a node's kind is missing or not source, action or llm. */
  NODE_KIND: { severity: 'error', rule: 'form B node kind is not source, action or llm' },
  /** Form B: an edge's delivery mode is not direct, ephemeral, checkpoint, durable or stream. */
  DELIVERY_MODE: { severity: 'error', rule: 'form B edge delivery mode is unknown' },
  /** Form B: an edge's from or to names no node. */
  UNKNOWN_NODE: { severity: 'error', rule: 'form B edge names an undefined node' },
  /** Form B: an edge's `packet` names no schema of `components.packets` (a warning, as the flow validator gives it). */
  UNKNOWN_PACKET: { severity: 'warning', rule: 'form B edge packet is not in components.packets' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

export type ModelCode = keyof typeof MODEL_CODES;

/** Every code this library emits, validation codes first. */
export const DIAGNOSTIC_CODES: Record<string, DiagnosticCodeInfo> = { ...VALIDATION_CODES, ...PIPELINE_CODES, ...MODEL_CODES };
