/**
 * AsyncAPI 2.x ↔ ApiModel (spec: flows-compile-search-hub.md "Rules: format conversion" item 2,
 * "Channel protocols", "Versioning": import accepts 2.x, export writes 2.6.0).
 *
 * Reader (`readAsyncApi`, a parsed 2.x document):
 * - Each channel is an IR channel (name = the channel key, description, extensions) whose
 *   `publish` and `subscribe` operations carry one event each: the operation's message (local
 *   `$ref`s followed; of a `oneOf` the first, with a warning, the others still read as events),
 *   its `operationId`, description (else summary) and the Kafka consumer group
 *   `bindings.kafka.groupId` (a schema `{type: string, enum: [id]}` as the binding spec defines
 *   it, `const`, or a plain string).
 * - Channel protocol: the protocol of the first server the channel lists (`servers`), else the
 *   first key of the channel's `bindings`, else the first key of its operations' bindings (an
 *   operation with a Kafka group id makes a Kafka channel), else the protocol all servers of the
 *   document share.
 * - Every message (used by a channel, or only declared in `components.messages`) is an event:
 *   name = message `name`, else `messageId`, else its components key, else `<channel>.<operation>`
 *   (warning). `entity_type` and `action` come from `x-entity-type`/`x-action` when present (and
 *   `topic` from `x-topic`), else from the first channel carrying the message, split on its last
 *   dot (`order.created` → order, created); a channel name without a dot is split on its last `/`
 *   and kept as the event's topic. The payload's properties are the event payload (a payload that
 *   is no object is the single field `value`); description = description, else summary, else title.
 * - Object `components.schemas` are entities (`$ref`s to them stay `ref` fields); top-level tags
 *   are modules.
 * - A channel marked `x-synthetic: true` (written by this writer for a model without channels) is
 *   read for its events only and gives no IR channel, so IR → AsyncAPI → IR keeps `channels: []`.
 *
 * Writer (`writeAsyncApi`, AsyncAPI 2.6.0; serialise the document as YAML or JSON):
 * - `info` from title (default "API"), apiVersion (else version, else "1.0.0"), description;
 *   `defaultContentType: application/json`; servers with their protocol (a server without one gets
 *   the scheme of its URL, else `kafka`, with a warning); modules as top-level `tags`.
 * - Model channels with a publish or subscribe event become channels (one without is left out,
 *   with a warning). An operation is `{operationId, description, bindings.kafka: {groupId: {type:
 *   string, enum: [id]}, bindingVersion: 0.4.0}, message: {$ref: '#/components/messages/<event>'}}`;
 *   the Kafka binding only on a channel of protocol kafka or none (elsewhere the group id is left
 *   out, with a warning). A channel protocol is written as `servers: [<servers of that protocol>]`
 *   when the model has such servers, else as an empty channel binding under its key in the
 *   AsyncAPI bindings registry (`websocket` is `ws`), else (grpc, unknown protocols) as the
 *   channel extension `x-protocol`, which the reader takes back.
 * - A model without channels but with events gets one synthetic channel per topic: the event's
 *   `topic` when set (decision: an explicit topic wins, since it is what the bus uses), else
 *   `<entity_type>.<action>`, else the event name; its `subscribe` operation (the application
 *   sends the message) has operationId `emit<Topic in PascalCase>` and the message, or a
 *   `oneOf` of the messages sharing the topic; the channel is marked `x-synthetic: true`.
 * - Each event is `components.messages.<name>`: `name` = event name (no `messageId`: the 2.6
 *   ruleset counts a message referenced by two operations as a duplicate messageId), description,
 *   payload (fieldsToSchema, omitted when the event has none), `x-entity-type`, `x-action`,
 *   `x-topic`, `x-module`, event extensions. Entities are `components.schemas`.
 *
 * Round trip: IR → AsyncAPI → IR keeps events (with entity_type and action) and channels (a
 * channel without protocol reads back `kafka` when one of its operations has a group id, else the
 * protocol the servers share, if they share one).
 */
import type { JsonSchema } from './field-types';
import {
  asString,
  cloneJson,
  extensionsOf,
  fmt,
  isRecord,
  pointer,
  resolvePointer,
  safeFieldsToSchema,
  withPositions,
  type FormatReadOptions,
  type FormatReadResult,
  type FormatWriteResult,
} from './format-util';
import { emptyModel, type ApiModel, type ChannelOperation, type Diagnostic, type ModelChannel, type ModelEvent, type ModelModule, type ModelServer } from './model';
import { entitySchema, moduleTag, readEntity, tagModule } from './openapi';
import { bodyFields, componentRef, isObjectSchema, type SchemaReadContext } from './schema-reader';

export const ASYNCAPI_VERSION = '2.6.0';
export const KAFKA_BINDING_VERSION = '0.4.0';

/** An AsyncAPI document (plain JSON value). */
export type AsyncApiDocument = Record<string, unknown>;

const DIRECTIONS = ['publish', 'subscribe'] as const;
const EVENT_X = ['x-entity-type', 'x-action', 'x-topic', 'x-module'];
const CHANNEL_X = ['x-synthetic', 'x-protocol'];
/** Channel extension carrying a protocol that has no binding in the AsyncAPI bindings registry (grpc, or one FDL050 warns about). */
const PROTOCOL_X = 'x-protocol';

/**
 * The key of each channel protocol in the AsyncAPI 2.6 bindings registry
 * (github.com/asyncapi/bindings): `websocket` is the `ws` binding; grpc has none.
 */
const BINDING_KEYS: Readonly<Record<string, string>> = { kafka: 'kafka', nats: 'nats', redis: 'redis', http: 'http', ws: 'ws', websocket: 'ws', amqp: 'amqp' };

/** The topic an event is published on: `topic`, else `<entity_type>.<action>`, else its name. */
export function eventTopic(e: ModelEvent): string {
  if (e.topic) return e.topic;
  if (e.entity_type && e.action) return `${e.entity_type}.${e.action}`;
  return e.name;
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

function protocolOfUrl(url: string): string | undefined {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (!m) return undefined;
  const scheme = m[1].toLowerCase();
  if (scheme === 'https') return 'http';
  if (scheme === 'wss') return 'ws';
  return scheme;
}

export function writeAsyncApi(model: ApiModel): FormatWriteResult<AsyncApiDocument> {
  const diagnostics: Diagnostic[] = [];
  const known = new Set(model.entities.map((e) => e.name));
  const info: Record<string, unknown> = { title: model.title ?? 'API', version: model.apiVersion ?? model.version ?? '1.0.0' };
  if (model.description) info.description = model.description;
  const doc: AsyncApiDocument = { asyncapi: ASYNCAPI_VERSION, info };

  const serverEntries = Object.entries(model.servers ?? {});
  if (serverEntries.length) {
    const servers: Record<string, unknown> = {};
    for (const [name, s] of serverEntries) {
      let protocol = s.protocol;
      if (!protocol) {
        protocol = protocolOfUrl(s.url) ?? 'kafka';
        diagnostics.push(fmt('warning', pointer('servers', name), `server "${name}" has no protocol; written as "${protocol}"`));
      }
      servers[name] = { url: s.url, protocol, ...(s.description !== undefined && { description: s.description }) };
    }
    doc.servers = servers;
  }
  doc.defaultContentType = 'application/json';
  if (model.modules.length) doc.tags = model.modules.map(moduleTag);

  const messages: Record<string, unknown> = {};
  const messageRef = (event: string, at: string): Record<string, unknown> => {
    if (messages[event] === undefined && !model.events.some((e) => e.name === event)) {
      diagnostics.push(fmt('warning', at, `event "${event}" is not declared; written as a message without payload`));
      messages[event] = { name: event };
    }
    return { $ref: componentRef('messages', event) };
  };
  model.events.forEach((e, i) => (messages[e.name] = messageOf(e, known, pointer('events', i), diagnostics)));

  const channels: Record<string, unknown> = {};
  if (model.channels.length) {
    model.channels.forEach((ch, i) => {
      const at = pointer('channels', i);
      if (channels[ch.name] !== undefined) {
        diagnostics.push(fmt('warning', at, `duplicate channel "${ch.name}" left out`));
        return;
      }
      // An AsyncAPI channel is where messages travel: one without an operation has nothing to say.
      if (!DIRECTIONS.some((dir) => ch[dir])) {
        diagnostics.push(fmt('warning', at, `channel "${ch.name}" has no publish or subscribe event; left out`));
        return;
      }
      const item: Record<string, unknown> = {};
      if (ch.description !== undefined) item.description = ch.description;
      const binding = ch.protocol ? BINDING_KEYS[ch.protocol] : undefined;
      if (ch.protocol) {
        const servers = serverEntries.filter(([, s]) => s.protocol === ch.protocol).map(([n]) => n);
        if (servers.length) item.servers = servers;
        else if (binding) item.bindings = { [binding]: {} };
        else item[PROTOCOL_X] = ch.protocol;
      }
      // A consumer group is a Kafka binding: a channel of another protocol has no place for it.
      const groupIds = ch.protocol === undefined || binding === 'kafka';
      for (const dir of DIRECTIONS) {
        const op = ch[dir];
        if (!op) continue;
        if (op.groupId !== undefined && !groupIds) diagnostics.push(fmt('warning', `${at}/${dir}/groupId`, `group id "${op.groupId}" is a Kafka binding; left out of the ${ch.protocol} channel "${ch.name}"`));
        item[dir] = operationOf(groupIds ? op : { ...op, groupId: undefined }, messageRef(op.event, `${at}/${dir}/event`));
      }
      channels[ch.name] = { ...item, ...cloneJson(ch.extensions ?? {}) };
    });
  } else {
    const byTopic = new Map<string, ModelEvent[]>();
    for (const e of model.events) byTopic.set(eventTopic(e), [...(byTopic.get(eventTopic(e)) ?? []), e]);
    for (const [topic, events] of byTopic) {
      const refs = events.map((e) => ({ $ref: componentRef('messages', e.name) }));
      channels[topic] = { 'x-synthetic': true, subscribe: { operationId: `emit${pascal(topic)}`, message: refs.length === 1 ? refs[0] : { oneOf: refs } } };
    }
  }
  doc.channels = channels;

  const components: Record<string, unknown> = {};
  if (Object.keys(messages).length) components.messages = messages;
  if (model.entities.length) {
    const schemas: Record<string, JsonSchema> = {};
    model.entities.forEach((e, i) => (schemas[e.name] = entitySchema(e, known, pointer('entities', i), diagnostics)));
    components.schemas = schemas;
  }
  if (Object.keys(components).length) doc.components = components;
  Object.assign(doc, cloneJson(model.extensions ?? {}));
  return { document: doc, diagnostics };
}

function operationOf(op: ChannelOperation, message: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (op.operationId !== undefined) out.operationId = op.operationId;
  if (op.description !== undefined) out.description = op.description;
  if (op.groupId !== undefined) out.bindings = { kafka: { groupId: { type: 'string', enum: [op.groupId] }, bindingVersion: KAFKA_BINDING_VERSION } };
  out.message = message;
  return out;
}

function messageOf(e: ModelEvent, known: Set<string>, at: string, diagnostics: Diagnostic[]): Record<string, unknown> {
  const msg: Record<string, unknown> = { name: e.name };
  if (e.description !== undefined) msg.description = e.description;
  if (e.payload !== undefined) msg.payload = safeFieldsToSchema(e.payload, known, `${at}/payload`, diagnostics);
  if (e.entity_type !== undefined) msg['x-entity-type'] = e.entity_type;
  if (e.action !== undefined) msg['x-action'] = e.action;
  if (e.topic !== undefined) msg['x-topic'] = e.topic;
  if (e.module !== undefined) msg['x-module'] = e.module;
  return { ...msg, ...cloneJson(e.extensions ?? {}) };
}

interface ReadMessage {
  msg: Record<string, unknown>;
  at: string;
  /** `components.messages` key when reached through a `$ref` (or read from there). */
  key?: string;
}

export function readAsyncApi(source: unknown, options: FormatReadOptions = {}): FormatReadResult {
  const result = readAsyncApiValue(source);
  withPositions(result.diagnostics, options.map);
  return result;
}

function readAsyncApiValue(source: unknown): FormatReadResult {
  const diagnostics: Diagnostic[] = [];
  const model = emptyModel({ version: '1.0' });
  if (!isRecord(source)) {
    diagnostics.push(fmt('error', '', 'an AsyncAPI document must be an object'));
    return { model, diagnostics };
  }
  const version = asString(source.asyncapi);
  if (version === undefined || !/^2\./.test(version)) {
    diagnostics.push(fmt('error', '/asyncapi', version === undefined ? 'missing "asyncapi" version' : `AsyncAPI ${version} is not supported (2.x is)`));
    if (version === undefined) return { model, diagnostics };
  }
  const info = isRecord(source.info) ? source.info : {};
  if (typeof info.title === 'string') model.title = info.title;
  if (typeof info.version === 'string') model.apiVersion = info.version;
  if (typeof info.description === 'string') model.description = info.description;

  const servers: Record<string, ModelServer> = {};
  if (isRecord(source.servers)) {
    for (const [name, s] of Object.entries(source.servers)) {
      if (!isRecord(s) || typeof s.url !== 'string') continue;
      servers[name] = { url: s.url, ...(typeof s.protocol === 'string' && { protocol: s.protocol }), ...(typeof s.description === 'string' && { description: s.description }) };
    }
    if (Object.keys(servers).length) model.servers = servers;
  }
  const protocols = [...new Set(Object.values(servers).map((s) => s.protocol))];
  const sharedProtocol = protocols.length === 1 ? protocols[0] : undefined;

  const modules: ModelModule[] = [];
  for (const t of Array.isArray(source.tags) ? source.tags : []) if (isRecord(t) && typeof t.name === 'string') modules.push(tagModule(t));
  model.modules = modules;

  const components = isRecord(source.components) ? source.components : {};
  const schemas = isRecord(components.schemas) ? components.schemas : {};
  const ctx: SchemaReadContext = { root: source, entityRefs: new Map(), diagnostics };
  for (const [name, s] of Object.entries(schemas)) if (isObjectSchema(s)) ctx.entityRefs.set(componentRef('schemas', name), name);

  const events = new Map<string, { event: ModelEvent; at: string }>();
  const readKeys = new Set<string>();
  const addEvent = (m: ReadMessage, channel: string | undefined, fallback: string): string => {
    if (m.key !== undefined) readKeys.add(m.key);
    let name = asString(m.msg.name) ?? asString(m.msg.messageId) ?? m.key;
    if (!name) {
      name = fallback;
      diagnostics.push(fmt('warning', m.at, `message has no name; read as event "${name}"`));
    }
    const seen = events.get(name);
    if (seen) {
      if (seen.at !== m.at) diagnostics.push(fmt('warning', m.at, `another message is already named "${name}"; this one is left out`));
      return name;
    }
    events.set(name, { event: readEvent(name, m, channel, ctx), at: m.at });
    return name;
  };

  const channels = isRecord(source.channels) ? source.channels : {};
  for (const [name, raw] of Object.entries(channels)) {
    const at = pointer('channels', name);
    if (!isRecord(raw)) continue;
    const ch: ModelChannel = { name };
    if (typeof raw.description === 'string') ch.description = raw.description;
    const protocol = channelProtocol(raw, servers) ?? sharedProtocol;
    if (protocol !== undefined) ch.protocol = protocol;
    for (const dir of DIRECTIONS) {
      const op = raw[dir];
      if (!isRecord(op)) continue;
      const opAt = `${at}/${dir}`;
      const msgs = operationMessages(op.message, `${opAt}/message`, ctx);
      if (msgs.length === 0) {
        diagnostics.push(fmt('warning', opAt, 'operation has no message; left out'));
        continue;
      }
      if (msgs.length > 1 && raw['x-synthetic'] !== true) {
        diagnostics.push(fmt('warning', `${opAt}/message/oneOf`, `an IR channel operation carries one event; the first of ${msgs.length} messages is used`));
      }
      const eventNames = msgs.map((m, i) => addEvent(m, name, msgs.length > 1 ? `${name}.${dir}.${i + 1}` : `${name}.${dir}`));
      const out: ChannelOperation = { event: eventNames[0] };
      if (typeof op.operationId === 'string') out.operationId = op.operationId;
      const groupId = kafkaGroupId(op.bindings);
      if (groupId !== undefined) out.groupId = groupId;
      const description = asString(op.description) ?? asString(op.summary);
      if (description !== undefined) out.description = description;
      if (op.traits !== undefined) diagnostics.push(fmt('warning', `${opAt}/traits`, 'operation traits are not applied'));
      ch[dir] = out;
    }
    if (raw['x-synthetic'] === true) continue;
    const ext = extensionsOf(raw, CHANNEL_X);
    if (ext) ch.extensions = ext;
    model.channels.push(ch);
  }

  const messages = isRecord(components.messages) ? components.messages : {};
  for (const [key, raw] of Object.entries(messages)) {
    if (readKeys.has(key)) continue;
    const at = pointer('components', 'messages', key);
    const msg = followRefs(raw, at, ctx);
    if (msg) addEvent({ msg, at, key }, undefined, key);
  }
  // Events in components.messages order (the writer's, so that IR → AsyncAPI → IR keeps it), inline messages after.
  const order = new Map(Object.keys(messages).map((key, i) => [pointer('components', 'messages', key), i]));
  const rank = (at: string): number => order.get(at) ?? order.size;
  model.events = [...events.values()].sort((a, b) => rank(a.at) - rank(b.at)).map((e) => e.event);

  for (const [name, s] of Object.entries(schemas)) {
    if (ctx.entityRefs.has(componentRef('schemas', name)) && isRecord(s)) model.entities.push(readEntity(name, s, pointer('components', 'schemas', name), ctx));
  }
  const ext = extensionsOf(source);
  if (ext) model.extensions = ext;
  return { model, diagnostics };
}

function followRefs(value: unknown, at: string, ctx: SchemaReadContext): Record<string, unknown> | undefined {
  let cur = value;
  for (let hops = 0; isRecord(cur) && typeof cur.$ref === 'string'; hops++) {
    const target = cur.$ref.startsWith('#') && hops < 16 ? resolvePointer(ctx.root, cur.$ref) : undefined;
    if (target === undefined) {
      ctx.diagnostics.push(fmt('warning', `${at}/$ref`, `$ref "${cur.$ref}" is not resolved; left out`));
      return undefined;
    }
    cur = target;
  }
  return isRecord(cur) ? cur : undefined;
}

const MESSAGE_REF = /^#\/components\/messages\/([^/]+)$/;

function operationMessages(message: unknown, at: string, ctx: SchemaReadContext): ReadMessage[] {
  if (!isRecord(message)) return [];
  const one = (value: unknown, vAt: string): ReadMessage | undefined => {
    const ref = isRecord(value) && typeof value.$ref === 'string' ? value.$ref : undefined;
    const m = ref ? MESSAGE_REF.exec(ref) : null;
    const key = m ? decodeURIComponent(m[1]).replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
    const msg = followRefs(value, vAt, ctx);
    if (!msg) return undefined;
    return { msg, at: key !== undefined ? pointer('components', 'messages', key) : vAt, ...(key !== undefined && { key }) };
  };
  if (Array.isArray(message.oneOf)) {
    return message.oneOf.map((m, i) => one(m, `${at}/oneOf/${i}`)).filter((m): m is ReadMessage => m !== undefined);
  }
  const m = one(message, at);
  return m ? [m] : [];
}

function channelProtocol(ch: Record<string, unknown>, servers: Record<string, ModelServer>): string | undefined {
  if (typeof ch[PROTOCOL_X] === 'string' && ch[PROTOCOL_X] !== '') return ch[PROTOCOL_X];
  if (Array.isArray(ch.servers)) {
    for (const name of ch.servers) if (typeof name === 'string' && servers[name]?.protocol) return servers[name].protocol;
  }
  if (isRecord(ch.bindings)) {
    const key = Object.keys(ch.bindings).find((k) => !k.startsWith('x-'));
    if (key) return key;
  }
  for (const dir of DIRECTIONS) {
    const op = ch[dir];
    if (isRecord(op) && isRecord(op.bindings)) {
      const key = Object.keys(op.bindings).find((k) => !k.startsWith('x-'));
      if (key) return key;
    }
  }
  return undefined;
}

/** `bindings.kafka.groupId` of an operation: the binding spec's `{type: string, enum: [id]}`, `const`, or a string. */
function kafkaGroupId(bindings: unknown): string | undefined {
  if (!isRecord(bindings) || !isRecord(bindings.kafka)) return undefined;
  const g = bindings.kafka.groupId;
  if (typeof g === 'string') return g;
  if (isRecord(g)) {
    if (Array.isArray(g.enum) && typeof g.enum[0] === 'string') return g.enum[0];
    if (typeof g.const === 'string') return g.const;
  }
  return undefined;
}

function readEvent(name: string, m: ReadMessage, channel: string | undefined, ctx: SchemaReadContext): ModelEvent {
  const { msg, at } = m;
  const event: ModelEvent = { name };
  const description = asString(msg.description) ?? asString(msg.summary) ?? asString(msg.title);
  if (description !== undefined) event.description = description;
  if (typeof msg['x-module'] === 'string') event.module = msg['x-module'];
  if (typeof msg['x-entity-type'] === 'string' || typeof msg['x-action'] === 'string') {
    if (typeof msg['x-entity-type'] === 'string') event.entity_type = msg['x-entity-type'];
    if (typeof msg['x-action'] === 'string') event.action = msg['x-action'];
  } else if (channel !== undefined) {
    const dot = channel.lastIndexOf('.');
    const cut = dot > 0 ? dot : channel.lastIndexOf('/');
    if (cut > 0 && cut < channel.length - 1) {
      event.entity_type = channel.slice(0, cut);
      event.action = channel.slice(cut + 1);
    }
    if (dot <= 0 || dot === channel.length - 1) event.topic = channel;
  }
  if (typeof msg['x-topic'] === 'string') event.topic = msg['x-topic'];
  if (msg.payload !== undefined) {
    const format = asString(msg.schemaFormat);
    if (format && !/^application\/(vnd\.aai\.asyncapi|schema\+json|schema\+yaml)/.test(format)) {
      ctx.diagnostics.push(fmt('warning', `${at}/schemaFormat`, `payload schema format "${format}" is not read; payload left out`));
    } else {
      event.payload = bodyFields(msg.payload, `${at}/payload`, ctx, 'value');
    }
  }
  if (msg.traits !== undefined) ctx.diagnostics.push(fmt('warning', `${at}/traits`, 'message traits are not applied'));
  const ext = extensionsOf(msg, EVENT_X);
  if (ext) event.extensions = ext;
  return event;
}

