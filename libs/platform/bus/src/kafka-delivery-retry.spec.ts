import { KafkaJSConnectionError, KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { KafkaEventBus, isTransientSendError } from './kafka-event-bus.adapter';

const silent = { warn: () => undefined, error: () => undefined };

/** A bus whose producer answers each send with the next of `outcomes` (an error to throw, or ok). */
function busWith(outcomes: Array<Error | 'ok'>, deliveryTimeoutMs = 10_000) {
  const bus = new KafkaEventBus({ brokers: ['127.0.0.1:1'], logger: silent, provisionTopics: false, deliveryTimeoutMs });
  const sent: string[][] = [];
  const producer = {
    sendBatch: async ({ topicMessages }: { topicMessages: Array<{ messages: Array<{ value: string }> }> }) => {
      sent.push(topicMessages.flatMap((t) => t.messages.map((m) => String(m.value))));
      const next = outcomes.shift() ?? 'ok';
      if (next !== 'ok') throw next;
    },
    disconnect: async () => undefined,
  };
  (bus as unknown as { getProducer: () => Promise<typeof producer> }).getProducer = async () => producer;
  return { bus, sent };
}

// What kafkajs throws when a partition leader's broker was SIGKILLed: its own retries ran out
// (kafkajs' retrier wraps the last error as the cause).
const brokerDown = () => {
  const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:40551');
  // kafkajs' typings omit the options argument its retrier passes.
  const Wrapped = KafkaJSNonRetriableError as unknown as new (e: Error, o: { cause: Error }) => KafkaJSNonRetriableError;
  return new Wrapped(refused, { cause: refused });
};

describe('KafkaEventBus delivery through broker failures', () => {
  it('tries a send again through a dead leader until it is accepted, keeping the order of later events', async () => {
    const { bus, sent } = busWith([brokerDown(), brokerDown(), 'ok']);
    const first = bus.publish('orders.placed', 1, { key: 'k' });
    await new Promise((r) => setImmediate(r));
    const second = bus.publish('orders.placed', 2, { key: 'k' });
    await expect(Promise.all([first, second])).resolves.toHaveLength(2);
    // The first batch three times, then the second: nothing overtook it.
    expect(sent).toEqual([['1'], ['1'], ['1'], ['2']]);
    await bus.close();
  });

  it('rejects at once what no retry can fix, and a transient failure once the delivery deadline passed', async () => {
    const tooLarge = new KafkaJSProtocolError('The request included a message larger than the max message size the server will accept');
    (tooLarge as unknown as { type: string }).type = 'MESSAGE_TOO_LARGE';
    const refused = busWith([tooLarge]);
    await expect(refused.bus.publish('orders.placed', 1)).rejects.toBe(tooLarge);
    expect(refused.sent).toHaveLength(1);

    const down = busWith(Array.from({ length: 100 }, brokerDown), 300);
    const started = Date.now();
    await expect(down.bus.publish('orders.placed', 1)).rejects.toBeInstanceOf(KafkaJSNonRetriableError);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(down.sent.length).toBeGreaterThan(1);
  });

  it('tells transient failures from permanent ones, through kafkajs’ wrapping', () => {
    expect(isTransientSendError(brokerDown())).toBe(true);
    expect(isTransientSendError(Object.assign(new Error('x'), { type: 'NOT_ENOUGH_REPLICAS' }))).toBe(true);
    expect(isTransientSendError(Object.assign(new Error('x'), { type: 'MESSAGE_TOO_LARGE' }))).toBe(false);
    expect(isTransientSendError(new TypeError('bad'))).toBe(false);
  });
});
