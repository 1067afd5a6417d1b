/**
 * Stable codes of the problems the IR and spec-form validators and the document parser report.
 * They are a contract: the HTTP layer and the editor key on them, so never rename one.
 */
export const FLOW_ISSUE_CODES = {
  // Shape (JSON Schema).
  /** A required field is absent. */
  MISSING_FIELD: 'MISSING_FIELD',
  /** A field the format does not define (a typo such as `actionRef` would otherwise be ignored silently). */
  UNKNOWN_FIELD: 'UNKNOWN_FIELD',
  /** A value of the wrong JSON type. */
  INVALID_TYPE: 'INVALID_TYPE',
  /** A value outside its enum, empty where it must not be, or otherwise out of range. */
  INVALID_VALUE: 'INVALID_VALUE',
  /** Spec form: `flowdef` is not a supported version. */
  UNSUPPORTED_VERSION: 'UNSUPPORTED_VERSION',

  // Graph and references.
  /** More nodes than the limit (`FLOW_MAX_NODES`, default 500). */
  TOO_MANY_NODES: 'TOO_MANY_NODES',
  /** A node id or an edge id is used twice. */
  DUPLICATE_ID: 'DUPLICATE_ID',
  /** An edge names a node that does not exist. */
  UNKNOWN_NODE: 'UNKNOWN_NODE',
  /** No node of kind `start`: nothing would receive the run input. */
  NO_START_NODE: 'NO_START_NODE',
  /** Warning: an edge leaves an `end` node; it can never fire because `end` completes the run. */
  END_NODE_HAS_OUTGOING_EDGE: 'END_NODE_HAS_OUTGOING_EDGE',
  /** Warning: `edge.packet` names no schema of `meta.packets`. */
  UNKNOWN_PACKET: 'UNKNOWN_PACKET',
  /** Warning: a node has no `meta.positions` entry (it would render at the origin). */
  MISSING_POSITION: 'MISSING_POSITION',
  /** Warning: a `meta.positions` entry names no node. */
  STALE_POSITION: 'STALE_POSITION',
  /** An `action_ref` names no registered node (only checked when the caller knows the registry; a warning when a version is saved, an error at publish). */
  UNKNOWN_ACTION_REF: 'UNKNOWN_ACTION_REF',
  /** Warning: a config key is not in the node's settings schema; the engine drops it. */
  UNKNOWN_CONFIG_KEY: 'UNKNOWN_CONFIG_KEY',
  /** Warning: an edge condition does not parse; it will always evaluate to false. */
  CONDITION_PARSE_ERROR: 'CONDITION_PARSE_ERROR',
  /** A node config value its settings schema refuses (wrong type, enum, format, range, a required key missing). */
  INVALID_NODE_CONFIG: 'INVALID_NODE_CONFIG',
  /** Warning: a cycle with no `wait` node and no condition on its edges; a run goes round until its step limit. */
  UNBOUNDED_CYCLE: 'UNBOUNDED_CYCLE',
  /** Warning: an edge's `packet` schema does not match the port schemas the edge connects. */
  PACKET_MISMATCH: 'PACKET_MISMATCH',

  // Document text (parser).
  /** The document text is larger than the limit (`FLOW_MAX_DOCUMENT_BYTES`, default 1 MiB): HTTP 413. */
  TOO_LARGE: 'TOO_LARGE',
  /** The body is not valid UTF-8. */
  INVALID_ENCODING: 'INVALID_ENCODING',
  /** The body is not valid JSON. */
  INVALID_JSON: 'INVALID_JSON',
  /** The body is not valid YAML (or holds values JSON cannot carry, such as `.inf`). */
  INVALID_YAML: 'INVALID_YAML',
  /** The body parsed, but to a list, a scalar or nothing rather than a mapping. */
  NOT_A_MAPPING: 'NOT_A_MAPPING',
} as const;

export type FlowIssueCode = (typeof FLOW_ISSUE_CODES)[keyof typeof FLOW_ISSUE_CODES];
