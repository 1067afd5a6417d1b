import { logLevel } from 'kafkajs';
import { type AssistantHandoffRequestedPayload, type CloudEvent, Topics } from '@flowplane/contracts';
import { KafkaEventBus } from '@flowplane/platform/bus';
import type { ServiceConfig } from '@flowplane/platform/service';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import { describeIntegration, type KafkaMock, kafkaMockUnavailable, startKafkaMock } from '@flowplane/platform/testing';
import { ChatRepository } from '../../chats/persistence/chat.repository';
import { HandoffRepository } from '../persistence/handoff.repository';
import { HandoffsOutbox } from '../persistence/handoffs.outbox';
import { RequestHandoffUseCase } from './request-handoff.use-case';

const silent = { warn: () => undefined, error: () => undefined };

/** The handoff event leaves through the outbox onto Kafka (the mock broker) with every payload field, once. */
describeIntegration('handoff event over Kafka', kafkaMockUnavailable(), { requiredInCi: true }, () => {
  let mock: KafkaMock;
  let store: Store;
  let producer: KafkaEventBus;
  let consumer: KafkaEventBus;
  let outbox: HandoffsOutbox;

  const kafka = (clientId: string) =>
    new KafkaEventBus({ brokers: mock.brokers, clientId, sessionTimeout: 6000, heartbeatInterval: 300, rebalanceTimeout: 6000, maxWaitTimeInMs: 50, retry: { retries: 3, initialRetryTime: 100 }, logLevel: logLevel.NOTHING, logger: silent });

  beforeAll(async () => {
    mock = await startKafkaMock({ topics: [{ name: Topics.AssistantHandoffRequested, partitions: 2 }] });
    store = await createMemoryStore();
    producer = kafka('assistant');
    consumer = kafka('notifier');
  }, 30_000);
  afterAll(async () => {
    await outbox?.beforeApplicationShutdown();
    await producer?.close();
    await consumer?.close();
    await store?.close();
    await mock?.stop();
  }, 30_000);

  it('publishes assistant.handoff_requested once, keyed by session, with the spec payload', async () => {
    const received: CloudEvent<AssistantHandoffRequestedPayload>[] = [];
    await consumer.subscribe([Topics.AssistantHandoffRequested], { groupId: 'handoff-notification', fromBeginning: true }, async (e) => void received.push(e as CloudEvent<AssistantHandoffRequestedPayload>));
    const chats = new ChatRepository(store);
    const handoffs = new HandoffRepository(store);
    await Promise.all([chats.ensureIndexes(), handoffs.ensureIndexes()]);
    outbox = new HandoffsOutbox(store, producer);
    outbox.onApplicationBootstrap();
    const t0 = new Date();
    await chats.append({ sessionId: 'kafka-session-1', flowId: 'assistant', versionHash: 'h', variantLabel: 'stable' }, { role: 'user', content: 'a person please', at: t0 }, new Date(t0.getTime() + 60_000), t0);
    const useCase = new RequestHandoffUseCase(handoffs, chats, outbox, {} as ServiceConfig);
    const h = await useCase.execute({ sessionId: 'kafka-session-1', email: 'ada@example.com', priority: 'urgent', reason: 'refund' }, t0);
    await expect(useCase.execute({ sessionId: 'kafka-session-1', email: 'ada@example.com' }, t0)).rejects.toMatchObject({ status: 409 });

    for (let i = 0; i < 300 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ type: Topics.AssistantHandoffRequested, entitytype: 'assistant_handoff', action: 'requested' });
    expect(received[0].data).toEqual({
      handoffId: h.id,
      chatId: h.chatId,
      sessionId: 'kafka-session-1',
      email: 'ada@example.com',
      reason: 'refund',
      priority: 'high',
      transcript: 'user: a person please',
      requestedAt: t0.toISOString(),
    });
  }, 60_000);
});
