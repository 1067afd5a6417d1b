import { logLevel } from 'kafkajs';
import {
  describeIntegration,
  kafkaMockUnavailable,
  kafkaTestServer,
  startKafkaMock,
  type KafkaMock,
} from '@flowplane/platform/testing';
import { eventBusContract } from './event-bus.contract';
import { KafkaEventBus } from './kafka-event-bus.adapter';
import { MemoryEventBus } from './memory-event-bus.adapter';

const silent = { warn: () => undefined, error: () => undefined };

describe('EventBus contract: memory', () => {
  eventBusContract(async () => new MemoryEventBus({ logger: silent }), {
    deliveryTimeoutMs: 3000,
    quietMs: 30,
    testTimeoutMs: 10_000,
  });
});

describeIntegration('EventBus contract: kafka (mock broker)', kafkaMockUnavailable(), { requiredInCi: true }, () => {
  let mock: KafkaMock;

  beforeAll(async () => {
    mock = await startKafkaMock();
  });

  afterAll(async () => {
    await mock?.stop();
  });

  eventBusContract(
    async () =>
      new KafkaEventBus({
        brokers: mock.brokers,
        clientId: 'contract',
        // The mock needs about one session timeout to let a restarted group member back in.
        sessionTimeout: 6000,
        heartbeatInterval: 300,
        rebalanceTimeout: 6000,
        maxWaitTimeInMs: 50,
        retry: { retries: 3, initialRetryTime: 100 },
        logLevel: logLevel.NOTHING,
        logger: silent,
      }),
    { deliveryTimeoutMs: 15_000, quietMs: 300, testTimeoutMs: 30_000 },
  );
});

// Apache Kafka itself: `TEST_KAFKA_BROKERS` (npm run engines:up), else a testcontainers broker.
const realKafka = kafkaTestServer();
describeIntegration(
  `EventBus contract: Apache Kafka (${realKafka.source})`,
  realKafka.unavailable,
  { requiredInCi: true },
  () => {
    let server: Awaited<ReturnType<typeof realKafka.start>>;

    beforeAll(async () => {
      server = await realKafka.start();
    }, 240_000);

    afterAll(async () => {
      await server?.stop();
    });

    eventBusContract(
      async () =>
        new KafkaEventBus({
          brokers: server.brokers,
          clientId: 'contract-real',
          idempotent: true,
          sessionTimeout: 6000,
          heartbeatInterval: 300,
          rebalanceTimeout: 6000,
          maxWaitTimeInMs: 50,
          retry: { retries: 5, initialRetryTime: 100 },
          logLevel: logLevel.NOTHING,
          logger: silent,
        }),
      { deliveryTimeoutMs: 20_000, quietMs: 500, testTimeoutMs: 45_000 },
    );
  },
);
