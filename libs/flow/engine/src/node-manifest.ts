import type { JsonSchema, NodeKind } from '@flowplane/flow/ir';

/**
 * The node contract (issue 4 item 5): a node is a manifest plus a handler. The engine calls the
 * handler once per step with a context; the handler answers with outputs, each on a port.
 */

/** The port a pass-through node (no `action_ref`) emits on, and the usual single output port. */
export const DEFAULT_PORT = 'out';

/** The output port a throwing handler is routed to when its manifest declares it (packet `{error}`). */
export const ERROR_PORT = 'Error';

/** One typed port of a manifest. */
export interface PortDeclaration {
  /** Port name, unique per direction (for example `Email`, `Sent`, `Error`). */
  port: string;
  /** JSON Schema of the packet on this port. */
  schema?: JsonSchema;
  description?: string;
}

/**
 * JSON Schema of a node's settings. Property hints (spec "Node setting hints for a profile
 * selector"): `x-profile-kind` marks a profile selector (`<kind>` or `<module>/<kind>`),
 * `x-overrides` lists the sibling keys its profile supplies defaults for, `x-profile-overridable`
 * makes a blank node value defer to the profile, `x-order` orders properties; `x-ui.order` at the
 * schema level orders the form.
 */
export interface SettingsSchema extends JsonSchema {
  type?: 'object';
  properties?: Record<string, SettingsProperty>;
  required?: string[];
  /** When not explicitly true (or a schema), keys outside `properties` are dropped with a warning. */
  additionalProperties?: boolean | JsonSchema;
  'x-ui'?: { order?: string[] } & Record<string, unknown>;
}

/** One property of a settings schema. */
export interface SettingsProperty extends JsonSchema {
  type?: string | string[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  default?: unknown;
  enum?: unknown[];
  'x-profile-kind'?: string;
  'x-overrides'?: string[];
  'x-profile-overridable'?: boolean;
  'x-order'?: number;
}

/** What a node is, as listed by `GET /flows/nodes`. */
export interface NodeManifest {
  /** Registry id referenced by `action_ref` (built-ins use the `svc/` prefix). */
  id: string;
  name: string;
  /** The kind the editor gives a new node of this type. */
  kind: NodeKind;
  description?: string;
  settingsSchema?: SettingsSchema;
  inputs: PortDeclaration[];
  outputs: PortDeclaration[];
  /** Default per-step timeout of this node in ms; overrides the engine's `nodeTimeoutMs`. 0 disables it. */
  timeoutMs?: number;
}

/** One output of a step: a packet on a port. */
export interface NodeOutput {
  port: string;
  packet: unknown;
}

/** A streamed chunk (for example an LLM token) yielded by a streaming handler. */
export interface NodeToken {
  token: string;
}

/** Log levels of `ctx.log`. */
export type NodeLogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Read-only facts about the node being run. */
export interface NodeInfo {
  id: string;
  name?: string;
  kind: NodeKind;
  actionRef?: string;
}

/** Free-form run metadata given to `engine.start` (user, session, request id, ...). */
export type RunMeta = Readonly<Record<string, unknown>>;

/**
 * What a handler sees. Treat `input` and `config` as immutable: a packet may be shared by parallel
 * branches and the static config by every run of the version.
 */
export interface NodeContext<TConfig extends Record<string, unknown> = Record<string, unknown>> {
  /** The packet that arrived on this step. */
  readonly input: unknown;
  /** The node config: interpreted by value kind, unknown keys dropped, profiles merged underneath, defaults filled. */
  readonly config: Readonly<TConfig>;
  readonly runId: string;
  readonly nodeId: string;
  /**
   * Idempotency key of this step: the same when a resumed run executes the step again (after a
   * crash, from its last checkpoint) or a durable step is redelivered, different for every other
   * step. Built from the run, the checkpoint the branch left from, the node and how many times that
   * branch had reached the node. Pass it on with side effects (an envelope id, an Idempotency-Key
   * header) so a retried step does not act twice.
   */
  readonly stepKey: string;
  readonly node: NodeInfo;
  readonly meta: RunMeta;
  /** Aborted on run cancellation, on this step's timeout, when another branch ended the run, and on engine close. */
  readonly signal: AbortSignal;
  /** Chunks the upstream node streamed, when this step was reached over a `stream` edge. */
  readonly upstreamTokens?: readonly string[];
  /** Streams a chunk: it becomes a `token` run event at once (before the step completes). */
  emitToken(chunk: string): void;
  /** Adds a `node.log` entry to the run timeline (default level `info`). */
  log(message: string, data?: Record<string, unknown>, level?: NodeLogLevel): void;
}

/** What a handler may answer: nothing (the branch ends), one output, several, or a stream. */
export type NodeHandlerResult =
  | void
  | NodeOutput
  | NodeOutput[]
  | Promise<void | NodeOutput | NodeOutput[]>
  | AsyncIterable<NodeOutput | NodeToken>;

/**
 * A node's behaviour. A streaming handler returns an async iterable: each yielded `{token}` is
 * emitted as a `token` event at once, each yielded output is routed at once. Throw to fail the
 * step (routed to the `Error` port when the manifest has one); throw `RunRejectedError` to end the
 * run as rejected.
 */
export type NodeHandler = (ctx: NodeContext) => NodeHandlerResult;

/** A registered node: its manifest and its handler. */
export interface NodeDefinition {
  manifest: NodeManifest;
  handler: NodeHandler;
}

/** Whether a yielded item is a token chunk rather than an output. */
export function isNodeToken(item: NodeOutput | NodeToken): item is NodeToken {
  return typeof (item as NodeToken).token === 'string' && (item as NodeOutput).port === undefined;
}
