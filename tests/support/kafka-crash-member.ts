/**
 * One member of a Kafka consumer group in its own process, for tests that SIGKILL it: its first
 * `failures` positionings fail (as a broker that does not answer an admin request would make them),
 * it prints `subscribed` once subscribe() resolves, then `got <id>` for each event, and never
 * finishes a handler, so it commits nothing the handler touched.
 *
 * usage: node dist/tests/support/kafka-crash-member.js <brokers> <topic> <groupId> <failures>
 */
import { logLevel } from 'kafkajs';
import { KafkaEventBus } from '../../libs/platform/bus/src/kafka-event-bus.adapter';

async function main(): Promise<void> {
  const [brokers, topic, groupId, failures] = process.argv.slice(2);
  const proto = KafkaEventBus.prototype as unknown as { position: (...args: unknown[]) => Promise<void> };
  const position = proto.position;
  let left = Number(failures);
  proto.position = function (this: unknown, ...args: unknown[]) {
    if (left-- > 0) return Promise.reject(new Error('injected positioning failure'));
    return position.apply(this, args);
  };
  const bus = new KafkaEventBus({
    brokers: brokers.split(','),
    clientId: 'crash-member',
    sessionTimeout: 6000,
    heartbeatInterval: 300,
    maxWaitTimeInMs: 50,
    logLevel: logLevel.NOTHING,
    logger: { warn: () => undefined, error: () => undefined },
  });
  await bus.subscribe<{ id: string }>([topic], { groupId }, async (event) => {
    process.stdout.write(`got ${event.data.id}\n`);
    await new Promise(() => undefined);
  });
  process.stdout.write('subscribed\n');
}

main().catch((e: Error) => {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
});
