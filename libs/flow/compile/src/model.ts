/**
 * The canonical IR of the compile pipeline (issue 5 item 1): one model that every format reads
 * into and writes out of. Flow definition form A is its direct serialisation; OpenAPI, AsyncAPI,
 * the business model and form B each carry a part of it.
 *
 * Conventions:
 * - Lists keep document order; names are the identity of modules, entities, events, actions,
 *   workflows, channels and schedules (references between them are by name).
 * - Optional members are omitted rather than set to undefined, so JSON and YAML output stays tidy
 *   and `toEqual` comparisons in round trips are exact.
 * - `x-` keys readers meet on any item are kept in `extensions` and written back by the formats
 *   that support extensions (form A, OpenAPI, AsyncAPI).
 */

/** Field type names of the spec's "Field types" table (aliases included). */
export const FIELD_TYPES = [
  'string',
  'integer',
  'int',
  'float',
  'number',
  'boolean',
  'bool',
  'array',
  'object',
  'date',
  'datetime',
  'uuid',
  'binary',
  'enum',
  'ref',
  'any',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** A field of an entity, event payload or action input/output. */
export interface ModelField {
  /** One of FIELD_TYPES when valid; kept verbatim otherwise (the validator reports FDL012/FDL060). */
  type: string;
  required?: boolean;
  /** Allowed values (type `enum`, or any scalar type restricted to a list). */
  enum?: Array<string | number | boolean>;
  description?: string;
  /** Explicit JSON-Schema format overriding the one implied by the type. */
  format?: string;
  /** Element type of an `array`. */
  items?: ModelField;
  /** Nested fields of an `object`. */
  fields?: FieldMap;
  /** Target of a `ref`: an entity name (written as `#/components/schemas/<name>`). */
  ref?: string;
  nullable?: boolean;
  extensions?: Extensions;
}

/** Field name to field, in document order. */
export type FieldMap = Record<string, ModelField>;

/** `x-` keys kept verbatim. */
export type Extensions = Record<`x-${string}`, unknown>;

export interface ModelModule {
  name: string;
  description?: string;
  version?: string;
  provides?: string[];
  depends_on?: string[];
  extensions?: Extensions;
}

export interface ModelEntity {
  name: string;
  description?: string;
  /** Module owning it, when the source says. */
  module?: string;
  fields: FieldMap;
  extensions?: Extensions;
}

export interface ModelEvent {
  name: string;
  description?: string;
  module?: string;
  entity_type?: string;
  action?: string;
  /** Bus topic; defaults to `<entity_type>.<action>` when written to a broker format. */
  topic?: string;
  payload?: FieldMap;
  extensions?: Extensions;
}

export const ACTION_KINDS = ['command', 'query', 'transform'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface ModelAction {
  name: string;
  description?: string;
  module?: string;
  kind?: ActionKind;
  /** With `path`, the action is an HTTP operation (OpenAPI). Upper case. */
  method?: HttpMethod;
  /** Path template with `{param}` segments. */
  path?: string;
  input?: FieldMap;
  output?: FieldMap;
  /** Event names this action publishes. */
  emits?: string[];
  extensions?: Extensions;
}

export const STEP_KINDS = ['action', 'emit', 'end'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export interface ModelWorkflowStep {
  id: string;
  kind?: StepKind;
  /** Action name (kind `action`). */
  action?: string;
  /** Event name (kind `emit`). */
  event?: string;
  /** Step id run next. */
  next?: string;
  /** Step id run when this one fails. */
  on_error?: string;
  extensions?: Extensions;
}

export interface ModelWorkflow {
  name: string;
  description?: string;
  module?: string;
  /** Event names that start it. */
  triggers?: string[];
  steps: ModelWorkflowStep[];
  extensions?: Extensions;
}

/** Protocols of the spec's "Channel protocols" table. */
export const CHANNEL_PROTOCOLS = ['kafka', 'nats', 'redis', 'http', 'grpc', 'ws', 'websocket', 'amqp'] as const;
export type ChannelProtocol = (typeof CHANNEL_PROTOCOLS)[number];

/** One direction of a channel (AsyncAPI 2 `publish` / `subscribe`). */
export interface ChannelOperation {
  /** Event name carried. */
  event: string;
  operationId?: string;
  /** Kafka consumer group (`bindings.kafka.groupId`). */
  groupId?: string;
  description?: string;
}

export interface ModelChannel {
  /** The channel address (topic). */
  name: string;
  description?: string;
  /** One of CHANNEL_PROTOCOLS when valid; kept verbatim otherwise (FDL050). */
  protocol?: string;
  publish?: ChannelOperation;
  subscribe?: ChannelOperation;
  extensions?: Extensions;
}

export interface ModelSchedule {
  name: string;
  description?: string;
  /** Five fields, UTC. */
  cron: string;
  /** Action name fired. */
  action?: string;
  extensions?: Extensions;
}

export interface ModelServer {
  url: string;
  protocol?: string;
  description?: string;
}

/**
 * A flow graph in the runtime's spec form B (nodes map, edges with delivery mode and packet). Kept
 * so that form B survives a trip through the IR; packets are also exposed as entities.
 */
export interface ModelFlowGraph {
  nodes: Record<string, { operationId?: string; kind?: string; summary?: string; [key: `x-${string}`]: unknown }>;
  edges: Array<{ from: string; to: string; delivery?: { mode: string }; packet?: string; [key: `x-${string}`]: unknown }>;
}

/** The canonical document. */
export interface ApiModel {
  /** Form A `version` ("1.0"). Empty or absent: FDL002. */
  version?: string;
  title?: string;
  description?: string;
  /** The described API's own version (OpenAPI/AsyncAPI `info.version`), when different from `version`. */
  apiVersion?: string;
  servers?: Record<string, ModelServer>;
  modules: ModelModule[];
  entities: ModelEntity[];
  events: ModelEvent[];
  actions: ModelAction[];
  workflows: ModelWorkflow[];
  channels: ModelChannel[];
  schedules: ModelSchedule[];
  /** Form B graph, when the source had one. */
  flow?: ModelFlowGraph;
  extensions?: Extensions;
}

/** An empty model, for readers to fill. */
export function emptyModel(init: Partial<ApiModel> = {}): ApiModel {
  return { modules: [], entities: [], events: [], actions: [], workflows: [], channels: [], schedules: [], ...init };
}

/** Where a diagnostic points in its source text (1-based). */
export interface SourcePosition {
  line: number;
  column: number;
}

export type DiagnosticSeverity = 'error' | 'warning';

/**
 * A problem found while reading, converting or validating. `path` is a JSON pointer into the
 * SOURCE document when the problem comes from a reader, into the IR (form A shape) otherwise.
 */
export interface Diagnostic {
  /** FDLnnn for validation codes, PARSE for unparseable input, FMT for format-level problems. */
  code: string;
  severity: DiagnosticSeverity;
  message: string;
  path: string;
  position?: SourcePosition;
}
