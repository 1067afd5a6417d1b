import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { asyncApiModel } from '../test/format.arbitrary';
import { asyncApiReport, fixturePath, golden, loadFixture, toJson, toYaml } from '../test/format-helpers';
import { eventTopic, readAsyncApi, writeAsyncApi } from './asyncapi';
import { readFormA } from './form-a';
import type { ApiModel, ModelChannel } from './model';
import { parseSource } from './source';

const shop = loadFixture('ir/shop.model.json') as ApiModel;
const noChannels: ApiModel = { ...shop, channels: [] };

/**
 * Channels as read back: only those with an operation; `websocket` is the `ws` binding; a group id
 * only on a channel of protocol kafka or none; one without protocol is `kafka` when an operation
 * has a group id (a Kafka binding), else gets the protocol all servers share, if they share one.
 */
function expectedChannels(model: ApiModel): ModelChannel[] {
  const protocols = [...new Set(Object.values(model.servers ?? {}).map((s) => s.protocol))];
  const noGroup = (op: ModelChannel['publish']) => op && Object.fromEntries(Object.entries(op).filter(([k]) => k !== 'groupId'));
  return model.channels.filter((ch) => ch.publish || ch.subscribe).map((ch) => {
    if (ch.protocol !== undefined) {
      const protocol = ch.protocol === 'websocket' && !Object.values(model.servers ?? {}).some((s) => s.protocol === 'websocket') ? 'ws' : ch.protocol;
      if (protocol === 'kafka') return ch;
      return JSON.parse(JSON.stringify({ ...ch, protocol, publish: noGroup(ch.publish), subscribe: noGroup(ch.subscribe) })) as ModelChannel;
    }
    if (ch.publish?.groupId !== undefined || ch.subscribe?.groupId !== undefined) return { ...ch, protocol: 'kafka' };
    return protocols.length === 1 && protocols[0] !== undefined ? { ...ch, protocol: protocols[0] } : ch;
  });
}

describe('writeAsyncApi', () => {
  it('writes the shop channels as valid AsyncAPI 2.6.0 (golden)', async () => {
    const { document, diagnostics } = writeAsyncApi(shop);
    expect(diagnostics).toEqual([]);
    golden('asyncapi/shop.asyncapi.yaml', toYaml(document));
    expect((await asyncApiReport(document)).errors).toEqual([]);
  });

  it('writes Kafka group ids as operation bindings and protocols through servers or channel bindings', () => {
    const channels = writeAsyncApi(shop).document.channels as Record<string, Record<string, unknown>>;
    expect(channels['order.placed']).toEqual({
      description: 'Orders as they are placed',
      servers: ['bus'],
      publish: {
        operationId: 'consumeOrderPlaced',
        bindings: { kafka: { groupId: { type: 'string', enum: ['billing'] }, bindingVersion: '0.4.0' } },
        message: { $ref: '#/components/messages/OrderPlaced' },
      },
      subscribe: { operationId: 'onOrderPlaced', description: 'The shop announces new orders', message: { $ref: '#/components/messages/OrderPlaced' } },
    });
    // No server speaks nats: the protocol is a channel binding.
    expect(channels['product.priced']).toEqual({ bindings: { nats: {} }, subscribe: { message: { $ref: '#/components/messages/ProductPriced' } }, 'x-retained': true });
  });

  it('leaves out channels without messages, and writes only binding keys of the AsyncAPI registry for the channel protocol', async () => {
    const event = shop.events[0].name;
    const model: ApiModel = {
      ...shop,
      servers: {},
      channels: [
        { name: 'idle', protocol: 'kafka' },
        { name: 'rpc', protocol: 'grpc', subscribe: { event } },
        { name: 'socket', protocol: 'websocket', subscribe: { event } },
        { name: 'queue', protocol: 'amqp', publish: { event, groupId: 'billing' } },
        { name: 'odd', protocol: 'pigeon', subscribe: { event } },
        { name: 'log', protocol: 'kafka', publish: { event, groupId: 'billing' } },
      ],
    };
    const { document, diagnostics } = writeAsyncApi(model);
    const channels = document.channels as Record<string, Record<string, any>>;
    expect(Object.keys(channels)).toEqual(['rpc', 'socket', 'queue', 'odd', 'log']);
    const registry = ['http', 'ws', 'kafka', 'anypointmq', 'amqp', 'amqp1', 'mqtt', 'mqtt5', 'nats', 'jms', 'sns', 'solace', 'sqs', 'stomp', 'redis', 'mercure', 'ibmmq', 'googlepubsub', 'pulsar'];
    for (const ch of Object.values(channels)) {
      for (const key of Object.keys(ch.bindings ?? {})) expect(registry).toContain(key);
      for (const dir of ['publish', 'subscribe']) for (const key of Object.keys(ch[dir]?.bindings ?? {})) expect(registry).toContain(key);
    }
    expect(channels.rpc).toEqual({ 'x-protocol': 'grpc', subscribe: { message: { $ref: `#/components/messages/${event}` } } });
    expect(channels.socket.bindings).toEqual({ ws: {} });
    expect(channels.queue).toEqual({ bindings: { amqp: {} }, publish: { message: { $ref: `#/components/messages/${event}` } } });
    expect(channels.odd).toEqual({ 'x-protocol': 'pigeon', subscribe: { message: { $ref: `#/components/messages/${event}` } } });
    expect(channels.log.publish.bindings).toEqual({ kafka: { groupId: { type: 'string', enum: ['billing'] }, bindingVersion: '0.4.0' } });
    expect(diagnostics).toEqual([
      { code: 'FMT', severity: 'warning', path: '/channels/0', message: 'channel "idle" has no publish or subscribe event; left out' },
      { code: 'FMT', severity: 'warning', path: '/channels/3/publish/groupId', message: 'group id "billing" is a Kafka binding; left out of the amqp channel "queue"' },
    ]);
    expect((await asyncApiReport(document)).errors).toEqual([]);
    // The protocols come back, also those without a binding.
    expect(readAsyncApi(JSON.parse(JSON.stringify(document))).model.channels.map((c) => [c.name, c.protocol])).toEqual([
      ['rpc', 'grpc'],
      ['socket', 'ws'],
      ['queue', 'amqp'],
      ['odd', 'pigeon'],
      ['log', 'kafka'],
    ]);
  });

  it('creates synthetic channels <entity_type>.<action> (or the topic) when the model has events but no channels (golden)', async () => {
    const { document } = writeAsyncApi(noChannels);
    golden('asyncapi/shop-events.asyncapi.yaml', toYaml(document));
    expect(Object.keys(document.channels as object)).toEqual(['product.priced', 'order.placed', 'shop.orders.paid']);
    expect((document.channels as Record<string, unknown>)['order.placed']).toEqual({
      'x-synthetic': true,
      subscribe: { operationId: 'emitOrderPlaced', message: { $ref: '#/components/messages/OrderPlaced' } },
    });
    expect((await asyncApiReport(document)).errors).toEqual([]);
  });

  it('puts events sharing a topic into one synthetic channel with a oneOf message', async () => {
    const model: ApiModel = { ...noChannels, events: [shop.events[1], { name: 'OrderPlacedV2', entity_type: 'order', action: 'placed' }] };
    const { document } = writeAsyncApi(model);
    expect((document.channels as Record<string, Record<string, unknown>>)['order.placed'].subscribe).toEqual({
      operationId: 'emitOrderPlaced',
      message: { oneOf: [{ $ref: '#/components/messages/OrderPlaced' }, { $ref: '#/components/messages/OrderPlacedV2' }] },
    });
    expect((await asyncApiReport(document)).errors).toEqual([]);
    expect(readAsyncApi(document).model.events).toEqual(model.events);
  });

  it('writes an undeclared channel event as a message without payload, with a warning', async () => {
    const model: ApiModel = { ...shop, channels: [{ name: 'x.y', subscribe: { event: 'Ghost' } }] };
    const { document, diagnostics } = writeAsyncApi(model);
    expect(diagnostics).toEqual([{ code: 'FMT', severity: 'warning', path: '/channels/0/subscribe/event', message: 'event "Ghost" is not declared; written as a message without payload' }]);
    expect((document.components as Record<string, Record<string, unknown>>).messages.Ghost).toEqual({ name: 'Ghost' });
    expect((await asyncApiReport(document)).errors).toEqual([]);
  });
});

describe('readAsyncApi', () => {
  it('reads a third-party style 2.x document with $refs to components.messages (golden)', async () => {
    const source = loadFixture('asyncapi/streetlights.asyncapi.yaml');
    expect((await asyncApiReport(source)).errors).toEqual([]);
    const result = readAsyncApi(source);
    golden('asyncapi/streetlights.model.json', toJson(result));
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('maps channels, operations, group ids, protocols and events', () => {
    const { model, diagnostics } = readAsyncApi(loadFixture('asyncapi/streetlights.asyncapi.yaml'));
    expect(model.channels).toEqual([
      {
        name: 'streetlight.measured',
        description: 'The topic on which measured values may be produced and consumed.',
        protocol: 'kafka',
        publish: { event: 'lightMeasured', operationId: 'receiveLightMeasurement', groupId: 'lighting-analytics', description: 'Inform about environmental lighting conditions of a particular streetlight.' },
      },
      { name: 'smartylighting/streetlights/1/0/action/turn', description: 'Commands to switch a streetlight on or off.', protocol: 'kafka', subscribe: { event: 'turnOn', operationId: 'turnStreetlight' } },
      // No servers list, no bindings, and the servers speak two protocols: no protocol.
      { name: 'streetlight.dimmed', subscribe: { event: 'dimLight', operationId: 'dimLight' } },
    ]);
    const events = new Map(model.events.map((e) => [e.name, e]));
    expect(events.get('lightMeasured')).toMatchObject({ entity_type: 'streetlight', action: 'measured' });
    expect(events.get('lightMeasured')?.payload).toEqual({
      lumens: { type: 'integer', description: 'Light intensity measured in lumens.' },
      sentAt: { type: 'datetime', description: 'Date and time when the message was sent.' },
      location: { type: 'ref', ref: 'location' },
    });
    expect(events.get('turnOff')).toMatchObject({ entity_type: 'streetlight', action: 'turned_off' });
    expect(events.get('dimLight')).toMatchObject({ entity_type: 'streetlight', action: 'dimmed' });
    expect(events.get('lampFailed')).toMatchObject({ entity_type: 'streetlight', action: 'failed', topic: 'streetlights.failures', description: 'A lamp stopped working.' });
    expect(model.entities.map((e) => e.name)).toEqual(['lightMeasuredPayload', 'turnOnOffPayload', 'dimLightPayload', 'location']);
    expect(diagnostics.map((d) => `${d.severity} ${d.path}`)).toEqual([
      'warning /components/messages/lightMeasured/traits',
      'warning /channels/smartylighting~1streetlights~11~10~1action~1turn/subscribe/message/oneOf',
    ]);
  });

  it('splits a channel name without dots on its last slash and keeps it as the topic', () => {
    const doc = { asyncapi: '2.0.0', info: { title: 't', version: '1' }, channels: { 'user/signedup': { subscribe: { message: { name: 'UserSignedUp', payload: { type: 'string' } } } } } };
    const { model, diagnostics } = readAsyncApi(doc);
    expect(model.events).toEqual([{ name: 'UserSignedUp', entity_type: 'user', action: 'signedup', topic: 'user/signedup', payload: { value: { type: 'string' } } }]);
    expect(diagnostics).toEqual([{ code: 'FMT', severity: 'warning', path: '/channels/user~1signedup/subscribe/message/payload', message: 'schema is no object; read as the single field "value"' }]);
  });

  it('refuses AsyncAPI 3 and fills positions from a source map', () => {
    expect(readAsyncApi({ asyncapi: '3.0.0', info: { title: 't', version: '1' } }).diagnostics).toEqual([
      { code: 'FMT', severity: 'error', path: '/asyncapi', message: 'AsyncAPI 3.0.0 is not supported (2.x is)' },
    ]);
    const parsed = parseSource('asyncapi: 2.6.0\ninfo: {title: t, version: "1"}\nchannels:\n  a.b:\n    publish:\n      message:\n        payload: {type: object}\n');
    expect(readAsyncApi(parsed.value, { map: parsed.map }).diagnostics).toEqual([
      { code: 'FMT', severity: 'warning', path: '/channels/a.b/publish/message', message: 'message has no name; read as event "a.b.publish"', position: { line: 6, column: 7 } },
    ]);
  });
});

describe('IR → AsyncAPI → IR', () => {
  it('keeps the shop events and channels', () => {
    const back = readAsyncApi(JSON.parse(JSON.stringify(writeAsyncApi(shop).document)));
    expect(back.diagnostics).toEqual([]);
    expect(back.model.events).toEqual(shop.events);
    expect(back.model.channels).toEqual(shop.channels);
    expect(back.model.entities).toEqual(JSON.parse(JSON.stringify(shop.entities).replace(/"float"/g, '"number"')));
    expect(back.model.modules).toEqual(shop.modules);
  });

  it('keeps events and no channels through synthetic channels', () => {
    const back = readAsyncApi(writeAsyncApi(noChannels).document);
    expect(back.model.events).toEqual(noChannels.events);
    expect(back.model.channels).toEqual([]);
    expect(noChannels.events.map(eventTopic)).toEqual(['product.priced', 'order.placed', 'shop.orders.paid']);
  });

  it('keeps events and channels of any model the format can carry (property)', () => {
    fc.assert(
      fc.property(asyncApiModel(), (model) => {
        const back = readAsyncApi(JSON.parse(JSON.stringify(writeAsyncApi(model).document)));
        expect(back.diagnostics).toEqual([]);
        expect(back.model.events).toEqual(model.events);
        expect(back.model.channels).toEqual(expectedChannels(model));
        expect(back.model.entities).toEqual(model.entities);
      }),
      { numRuns: 300 },
    );
  });

  it('writes documents @asyncapi/parser accepts for any such model (property)', async () => {
    await fc.assert(
      fc.asyncProperty(asyncApiModel(), async (model) => {
        expect((await asyncApiReport(writeAsyncApi(model).document)).errors).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });

  it('writes the order-service form A sample as valid AsyncAPI', async () => {
    if (!existsSync(fixturePath('order-service.flow.yaml'))) return;
    const model = readFormA(loadFixture('order-service.flow.yaml')).model as ApiModel;
    const { document } = writeAsyncApi(model);
    expect((await asyncApiReport(document)).errors).toEqual([]);
    expect(readAsyncApi(document).model.events.map((e) => e.name)).toEqual(model.events.map((e) => e.name));
  });
});
