import { compileFlow, FlowEngine, NodeRegistry } from '@flowplane/flow/engine';
import { type BusPublisher, NodeInputError } from './bus-publisher';
import { v5 as uuidV5 } from 'uuid';
import { EMAIL_ENVELOPE_NAMESPACE, emailSendHandler, emailSendNode } from './email-send.node';
import { emitEventHandler, emitTopic } from './emit-event.node';
import { nodeContext, single } from './test-context';

function fakeBus(fail?: Error) {
  const published: Array<{ topic: string; data: unknown; options?: unknown }> = [];
  let n = 0;
  const bus: BusPublisher = {
    publish: async <T>(topic: string, data: T, options?: { id?: string }) => {
      if (fail) throw fail;
      published.push({ topic, data, options });
      // As the real bus: the given envelope id, else a fresh one.
      return { id: options?.id ?? `evt-${++n}`, data } as never;
    },
  };
  return { bus, published };
}

describe('svc/email-send', () => {
  it('publishes a validated email.send payload and emits Sent with the envelope id', async () => {
    const { bus, published } = fakeBus();
    const out = await single(emailSendHandler(bus)(nodeContext({ to: 'a@example.com, b@example.com', subject: 'Hi', text: 'Body', extra: 'dropped' }, { from: 'Bot <bot@example.com>' })));
    const messageId = uuidV5('run-1:run:n1:1', EMAIL_ENVELOPE_NAMESPACE);
    expect(out).toEqual({ port: 'Sent', packet: { messageId } });
    expect(published).toEqual([{ topic: 'email.send', data: { to: ['a@example.com', 'b@example.com'], from: 'Bot <bot@example.com>', subject: 'Hi', text: 'Body' }, options: { id: messageId } }]);
  });

  it('sends the same envelope id when the same step runs again, and another for any other step', async () => {
    const { bus, published } = fakeBus();
    const email = { to: 'a@example.com', subject: 'Hi', text: 'Body' };
    const send = async (stepKey: string) => (await single(emailSendHandler(bus)(nodeContext(email, {}, { stepKey })))).packet as { messageId: string };
    const first = await send('run-7:3f2a:mail:1');
    const again = await send('run-7:3f2a:mail:1');
    const second = await send('run-7:3f2a:mail:2');
    const otherRun = await send('run-8:3f2a:mail:1');
    expect(again.messageId).toBe(first.messageId);
    expect(new Set([first.messageId, second.messageId, otherRun.messageId]).size).toBe(3);
    expect(published.map((p) => (p.options as { id: string }).id)).toEqual([first.messageId, first.messageId, second.messageId, otherRun.messageId]);
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
