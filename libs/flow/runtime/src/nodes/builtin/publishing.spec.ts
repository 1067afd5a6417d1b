import { compileFlow, FlowEngine, NodeRegistry } from '@flowplane/flow/engine';
import { type BusPublisher, NodeInputError } from './bus-publisher';
import { emailSendHandler, emailSendNode } from './email-send.node';
import { emitEventHandler, emitTopic } from './emit-event.node';
import { nodeContext, single } from './test-context';

function fakeBus(fail?: Error) {
  const published: Array<{ topic: string; data: unknown; options?: unknown }> = [];
  let n = 0;
  const bus: BusPublisher = {
    publish: async <T>(topic: string, data: T, options?: unknown) => {
      if (fail) throw fail;
      published.push({ topic, data, options });
      return { id: `evt-${++n}`, data } as never;
    },
  };
  return { bus, published };
}

describe('svc/email-send', () => {
  it('publishes a validated email.send payload and emits Sent with the envelope id', async () => {
    const { bus, published } = fakeBus();
    const out = await single(emailSendHandler(bus)(nodeContext({ to: 'a@example.com, b@example.com', subject: 'Hi', text: 'Body', extra: 'dropped' }, { from: 'Bot <bot@example.com>' })));
    expect(out).toEqual({ port: 'Sent', packet: { messageId: 'evt-1' } });
    expect(published).toEqual([{ topic: 'email.send', data: { to: ['a@example.com', 'b@example.com'], from: 'Bot <bot@example.com>', subject: 'Hi', text: 'Body' }, options: undefined }]);
  });

  it.each([
    [{ to: 'not-an-address', subject: 'Hi', text: 'x' }, /to:/],
    [{ to: ['a@example.com'], text: 'x' }, /subject/],
    [{ to: ['a@example.com'], subject: 'Hi' }, /text/],
    ['just a string', /must be an object/],
  ])('refuses an invalid packet %j without publishing', async (packet, message) => {
    const { bus, published } = fakeBus();
    await expect(single(emailSendHandler(bus)(nodeContext(packet)))).rejects.toThrow(message);
    await expect(single(emailSendHandler(bus)(nodeContext(packet)))).rejects.toBeInstanceOf(NodeInputError);
    expect(published).toEqual([]);
  });

  it('routes an invalid packet to the Error port of a flow', async () => {
    const { bus } = fakeBus();
    const registry = new NodeRegistry([emailSendNode(bus)]);
    registry.define({ id: 't/catch', name: 'catch', kind: 'action', inputs: [], outputs: [{ port: 'out' }] }, (ctx) => ({ port: 'out', packet: { caught: ctx.input } }));
    const flow = compileFlow(
      {
        nodes: [
          { id: 'start', kind: 'start' },
          { id: 'mail', kind: 'action', action_ref: 'svc/email-send' },
          { id: 'catch', kind: 'action', action_ref: 't/catch' },
          { id: 'end', kind: 'end' },
        ],
        edges: [
          { id: 'e1', from: 'start', to: 'mail' },
          { id: 'e2', from: 'mail', to: 'catch', port: 'Error' },
          { id: 'e3', from: 'catch', to: 'end' },
        ],
      },
      registry,
    );
    const engine = new FlowEngine();
    const result = await engine.start(flow, { to: 'nope', subject: 'Hi', text: 'x' }).done;
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ caught: { error: expect.stringContaining('invalid email') } });
    await engine.close();
  });
});

describe('svc/emit-event', () => {
  it('publishes the packet on config.topic, or packet.topic, with an optional key and payload path', async () => {
    const { bus, published } = fakeBus();
    expect(await single(emitEventHandler(bus)(nodeContext({ a: 1 }, { topic: 'orders.created' })))).toEqual({ port: 'out', packet: { eventId: 'evt-1', topic: 'orders.created' } });
    await single(emitEventHandler(bus)(nodeContext({ topic: 'orders.shipped', order: { id: 'o1' } }, { payloadFrom: 'order', key: 'order.id' })));
    expect(published).toEqual([
      { topic: 'orders.created', data: { a: 1 }, options: undefined },
      { topic: 'orders.shipped', data: { id: 'o1' }, options: { key: 'o1' } },
    ]);
  });

  it.each([
    [{}, {}, /no topic/],
    [{ topic: 'Orders.Created' }, {}, /invalid topic/],
    [{ topic: 'orders' }, {}, /invalid topic/],
    [{ topic: 'orders..x' }, {}, /invalid topic/],
    [{ topic: 'orders created' }, {}, /invalid topic/],
    [{ topic: 'orders.created.dlq' }, {}, /dead-letter/],
  ])('refuses topic config %j packet %j', (config, packet, message) => {
    expect(() => emitTopic(config, packet)).toThrow(message);
  });

  it('reports a missing payload path and a bus failure as errors', async () => {
    await expect(single(emitEventHandler(fakeBus().bus)(nodeContext({}, { topic: 'a.b', payloadFrom: 'nope' })))).rejects.toThrow(/nothing at nope/);
    await expect(single(emitEventHandler(fakeBus(new Error('bus down')).bus)(nodeContext({}, { topic: 'a.b' })))).rejects.toThrow('bus down');
  });
});
