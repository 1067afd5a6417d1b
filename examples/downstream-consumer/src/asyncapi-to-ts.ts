// AsyncAPI 2.x → TypeScript, just enough for the payloads Flowplane describes: a channel's message,
// its payload schema (JSON Schema as class-validator-jsonschema writes it, with `$ref`s into
// `#/components/schemas`) and the required CloudEvents headers. No dependencies, deterministic
// output (no dates, no versions), so a test can tell whether the committed file is current.

/** A JSON Schema, as far as this generator reads it. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  title?: string;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

interface AsyncApiMessage {
  $ref?: string;
  messageId?: string;
  name?: string;
  title?: string;
  summary?: string;
  description?: string;
  headers?: JsonSchema;
  payload?: JsonSchema;
}

interface AsyncApiChannel {
  description?: string;
  subscribe?: { message?: AsyncApiMessage };
  publish?: { message?: AsyncApiMessage };
}

/** The parts of an AsyncAPI 2.x document the generator reads. */
export interface AsyncApiDocument {
  asyncapi: string;
  id?: string;
  channels: Record<string, AsyncApiChannel>;
  components?: { messages?: Record<string, AsyncApiMessage>; schemas?: Record<string, JsonSchema> };
}

/** The topics this example consumes. */
export const DEFAULT_TOPICS = ['assistant.handoff_requested', 'profiles.updated'] as const;

const SCHEMA_REF = '#/components/schemas/';
const MESSAGE_REF = '#/components/messages/';
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `'text'` with the escapes a TypeScript string literal needs. */
function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

function literal(value: unknown): string {
  return typeof value === 'string' ? quote(value) : JSON.stringify(value);
}

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : quote(name);
}

/** PascalCase type name of a topic (`profiles.updated` → `ProfilesUpdated`), as the platform names its messages. */
function pascal(topic: string): string {
  return topic
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
}

/** A JSDoc block (or nothing) from a schema's description and constraints. */
function jsdoc(schema: JsonSchema, indent: string): string {
  const lines: string[] = [];
  if (schema.description) lines.push(...schema.description.split('\n'));
  const facts: string[] = [];
  if (schema.format) facts.push(`format ${schema.format}`);
  if (schema.pattern) facts.push(`pattern ${schema.pattern}`);
  for (const k of ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const) {
    if (schema[k] !== undefined) facts.push(`${k} ${schema[k]}`);
  }
  if (facts.length) lines.push(`Constraints: ${facts.join(', ')}.`);
  if (!lines.length) return '';
  const body = lines.map((l) => l.replace(/\*\//g, '*\\/'));
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`;
  return `${indent}/**\n${body.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

class Emitter {
  /** Named component schemas reached so far. */
  readonly used = new Set<string>();

  constructor(private readonly schemas: Record<string, JsonSchema>) {}

  refName(ref: string): string {
    if (!ref.startsWith(SCHEMA_REF))
      throw new Error(`unsupported $ref ${ref} (only ${SCHEMA_REF}… is resolved)`);
    const name = decodeURIComponent(ref.slice(SCHEMA_REF.length));
    if (!this.schemas[name]) throw new Error(`$ref ${ref} names no schema in components.schemas`);
    if (!IDENTIFIER.test(name))
      throw new Error(`schema name ${JSON.stringify(name)} is not a TypeScript identifier`);
    this.used.add(name);
    return name;
  }

  /** The TypeScript type of a schema; `indent` is the indentation of the line it appears on. */
  type(schema: JsonSchema | undefined, indent: string): string {
    if (!schema) return 'unknown';
    const t = this.bareType(schema, indent);
    return schema.nullable && t !== 'null' ? `${t} | null` : t;
  }

  private bareType(schema: JsonSchema, indent: string): string {
    if (schema.$ref) return this.refName(schema.$ref);
    if (schema.const !== undefined) return literal(schema.const);
    if (schema.enum) return schema.enum.map(literal).join(' | ');
    if (schema.allOf) return schema.allOf.map((s) => this.member(s, indent)).join(' & ');
    const union = schema.oneOf ?? schema.anyOf;
    if (union) return union.map((s) => this.member(s, indent)).join(' | ');
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    if (types.length > 1) return types.map((type) => this.member({ ...schema, type }, indent)).join(' | ');
    switch (types[0] ?? (schema.properties || schema.additionalProperties ? 'object' : undefined)) {
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array': {
        const item = this.member(schema.items ?? {}, indent);
        return /^[A-Za-z0-9_$]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
      }
      case 'object':
        return this.objectType(schema, indent);
      default:
        return 'unknown';
    }
  }

  /** A member of a union, intersection or array, parenthesised when it is itself composite. */
  private member(schema: JsonSchema, indent: string): string {
    const t = this.type(schema, indent);
    return /[|&]/.test(t) && !t.startsWith('{') ? `(${t})` : t;
  }

  /** An object literal type (or `Record<string, T>` for a pure map). */
  objectType(schema: JsonSchema, indent: string): string {
    const props = Object.entries(schema.properties ?? {});
    const extra = schema.additionalProperties;
    const extraType = extra === true ? 'unknown' : extra ? this.type(extra, indent) : undefined;
    if (!props.length) return extraType ? `Record<string, ${extraType}>` : 'Record<string, never>';
    const inner = indent + '  ';
    const required = new Set(schema.required ?? []);
    const lines = props.map(
      ([name, prop]) =>
        `${jsdoc(prop, inner)}${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${this.type(prop, inner)};`,
    );
    // An index signature must admit every declared property's type: `unknown` is the one that always does.
    if (extraType) lines.push(`${inner}[key: string]: unknown;`);
    return `{\n${lines.join('\n')}\n${indent}}`;
  }
}

interface TopicInfo {
  topic: string;
  messageId: string;
  payloadType: string;
  description?: string;
  requiredHeaders: string[];
  requiredFields: string[];
}

function resolveMessage(
  doc: AsyncApiDocument,
  message: AsyncApiMessage | undefined,
  topic: string,
): AsyncApiMessage {
  if (!message) throw new Error(`channel ${topic} has no message`);
  if (!message.$ref) return message;
  if (!message.$ref.startsWith(MESSAGE_REF)) throw new Error(`unsupported message $ref ${message.$ref}`);
  const resolved = doc.components?.messages?.[message.$ref.slice(MESSAGE_REF.length)];
  if (!resolved) throw new Error(`message ${message.$ref} of channel ${topic} is not in components.messages`);
  return resolved;
}

/** Checks the shape of a parsed document just enough to give a clear error on a wrong file. */
export function asAsyncApiDocument(value: unknown): AsyncApiDocument {
  const doc = value as Partial<AsyncApiDocument> | null;
  if (!doc || typeof doc !== 'object' || typeof doc.asyncapi !== 'string') {
    throw new Error('not an AsyncAPI document (no `asyncapi` version field)');
  }
  if (!doc.asyncapi.startsWith('2.')) throw new Error(`AsyncAPI ${doc.asyncapi} is not supported (2.x only)`);
  if (!doc.channels || typeof doc.channels !== 'object')
    throw new Error('the AsyncAPI document has no channels');
  return doc as AsyncApiDocument;
}

/**
 * The TypeScript module (`events.generated.ts`) describing `topics` of an AsyncAPI 2.x document:
 * one interface per payload schema (and the schemas they refer to), the topic list, a
 * topic → payload map, and per topic the required CloudEvents headers and payload fields.
 */
export function renderEventTypes(document: unknown, topics: readonly string[] = DEFAULT_TOPICS): string {
  const doc = asAsyncApiDocument(document);
  const schemas: Record<string, JsonSchema> = { ...(doc.components?.schemas ?? {}) };
  const emitter = new Emitter(schemas);
  const infos: TopicInfo[] = [];
  const payloadOf = new Map<string, string[]>();
  for (const topic of topics) {
    const channel = doc.channels[topic];
    if (!channel) throw new Error(`topic ${topic} is not a channel of the AsyncAPI document`);
    // In AsyncAPI 2.x the platform's `subscribe` operation is what a consumer receives.
    const message = resolveMessage(doc, (channel.subscribe ?? channel.publish)?.message, topic);
    const messageId = message.messageId ?? message.name ?? pascal(topic);
    if (!IDENTIFIER.test(messageId))
      throw new Error(`message id ${JSON.stringify(messageId)} is not an identifier`);
    const payload = message.payload ?? {};
    let payloadType: string;
    let payloadSchema: JsonSchema;
    if (payload.$ref) {
      payloadType = emitter.refName(payload.$ref);
      payloadSchema = schemas[payloadType];
    } else {
      payloadType = `${messageId}Payload`;
      if (schemas[payloadType])
        throw new Error(`inline payload of ${topic} would shadow schema ${payloadType}`);
      schemas[payloadType] = payload;
      emitter.used.add(payloadType);
      payloadSchema = payload;
    }
    payloadOf.set(payloadType, [...(payloadOf.get(payloadType) ?? []), topic]);
    infos.push({
      topic,
      messageId,
      payloadType,
      description: channel.description,
      requiredHeaders: [...(message.headers?.required ?? [])],
      requiredFields: [...(payloadSchema.required ?? [])],
    });
  }

  // Emit every reachable schema once, in name order; emitting one can reach more.
  const declarations = new Map<string, string>();
  for (
    let pending = [...emitter.used];
    pending.length;
    pending = [...emitter.used].filter((n) => !declarations.has(n))
  ) {
    for (const name of pending.sort()) {
      const schema = schemas[name];
      const objectLike =
        (schema.type === 'object' || (!schema.type && schema.properties)) && schema.properties;
      const topicsOf = payloadOf
        .get(name)
        ?.map((t) => `\`${t}\``)
        .join(', ');
      const fallback = topicsOf ? `Payload of ${topicsOf}.` : `Schema \`${name}\` of the AsyncAPI document.`;
      const comment = jsdoc({ ...schema, description: schema.description ?? fallback }, '');
      declarations.set(
        name,
        objectLike
          ? `${comment}export interface ${name} ${emitter.objectType(schema, '')}\n`
          : `${comment}export type ${name} = ${emitter.type(schema, '')};\n`,
      );
    }
  }

  const out: string[] = [];
  out.push(
    '// Generated by examples/downstream-consumer/src/generate-types.ts from the Flowplane AsyncAPI document',
    `// (${doc.id ?? 'no id'}, AsyncAPI ${doc.asyncapi}), channels ${topics.join(', ')}.`,
    '// Do not edit: regenerate with',
    '//   node dist/examples/downstream-consumer/src/generate-types.js [--url <gateway>/api/v1/asyncapi.yaml]',
    '// (tests/examples/downstream-consumer.spec.ts fails while this file is stale).',
    '',
  );
  for (const name of [...declarations.keys()].sort()) out.push(declarations.get(name)!);
  out.push(
    '/** The topics described here (Kafka topic = CloudEvents `type`). */',
    `export const TOPICS = [${infos.map((i) => quote(i.topic)).join(', ')}] as const;`,
    '',
    '/** One of the topics described here. */',
    'export type Topic = (typeof TOPICS)[number];',
    '',
    '/** The payload (Kafka message value, JSON) of each topic. */',
    'export interface TopicPayloads {',
    ...infos.map(
      (i) =>
        `${i.description ? jsdoc({ description: i.description }, '  ') : ''}  ${quote(i.topic)}: ${i.payloadType};`,
    ),
    '}',
    '',
    '/** Per topic: the AsyncAPI message id, the CloudEvents headers it always carries, the payload fields it always has. */',
    'export const EVENT_MESSAGES = {',
    ...infos.map((i) =>
      [
        `  ${quote(i.topic)}: {`,
        `    messageId: ${quote(i.messageId)},`,
        `    requiredHeaders: [${i.requiredHeaders.map(quote).join(', ')}],`,
        `    requiredFields: [${i.requiredFields.map(quote).join(', ')}],`,
        '  },',
      ].join('\n'),
    ),
    '} as const satisfies {',
    '  readonly [T in Topic]: {',
    '    messageId: string;',
    '    requiredHeaders: readonly string[];',
    '    requiredFields: readonly (keyof TopicPayloads[T] & string)[];',
    '  };',
    '};',
    '',
  );
  return out.join('\n');
}
