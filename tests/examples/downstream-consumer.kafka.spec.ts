import { randomUUID } from 'node:crypto';
import type { INestMicroservice, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type Admin, type Consumer, Kafka, logLevel, type Producer } from 'kafkajs';
import { type CloudEvent as BusEvent, describeTopic, validateEventPayload } from '@flowplane/contracts';
import { KafkaEventBus } from '@flowplane/platform/bus';
import { describeIntegration } from '@flowplane/platform/testing';
import { DownstreamConsumerModule } from '../../examples/downstream-consumer/src/app.module';
import type { CloudEvent, CloudEventAttributes } from '../../examples/downstream-consumer/src/cloud-event';
import { kafkaMicroserviceOptions, loadConfig } from '../../examples/downstream-consumer/src/config';
import {
  type AssistantHandoffRequestedPayload,
  type ProfilesUpdatedPayload,
  type Topic,
  TOPICS,
  type TopicPayloads,
} from '../../examples/downstream-consumer/src/events.generated';
import { DownstreamHandlers } from '../../examples/downstream-consumer/src/handlers';

/**
 * The downstream-consumer example against a real Apache Kafka: two instances of the Nest
 * microservice in two consumer groups, fed by the platform's own KafkaEventBus. Every event of the
 * run reaches each group once, the re-published copy (same CloudEvents id) is skipped, and the
 * envelope decoded from the `ce_*` headers equals the one the bus published.
 */

const brokers = (process.env.TEST_KAFKA_BROKERS ?? '')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);

describeIntegration(
  'downstream-consumer example on Apache Kafka',
  brokers.length ? false : 'TEST_KAFKA_BROKERS is not set (host:port of an Apache Kafka broker)',
  { requiredInCi: true },
  () => {
    // The topics are shared with every other user of the broker and may hold old events: every group
    // is new, starts at the log end (the example's default) and is positioned before anything is
    // published, and only events keyed with this run's marker count.
    const run = `dc-${Date.now()}-${randomUUID().slice(0, 8)}`;
    const groups = [`${run}-a`, `${run}-b`];
    const mine = (e: CloudEventAttributes) => e.subject?.startsWith(`${run}/`) === true;
    const started: { groupId: string; app: INestMicroservice }[] = [];
    /** Per group of the first test: the events its handlers processed and the repeats it skipped. */
    const seen = new Map(
      groups.map((g) => [g, { processed: [] as CloudEvent[], duplicates: [] as CloudEvent[] }]),
    );
    let admin: Admin | undefined;
    let bus: KafkaEventBus | undefined;

    /** The example microservice in `groupId`, listening and positioned; its handlers are returned for spying. */
    async function startConsumer(groupId: string, logger: LogLevel[] | false): Promise<DownstreamHandlers> {
      const config = loadConfig({ KAFKA_BROKERS: brokers.join(','), KAFKA_GROUP_ID: groupId });
      // Test timings: a quick join and a quick leave (the broker's initial rebalance delay is 0).
      const tuning = {
        sessionTimeout: 6000,
        heartbeatInterval: 300,
        rebalanceTimeout: 6000,
        maxWaitTimeInMs: 100,
      };
      const app = await NestFactory.createMicroservice(DownstreamConsumerModule, {
        ...kafkaMicroserviceOptions(config, tuning),
        logger,
      });
      started.push({ groupId, app });
      await app.listen();
      // A new group starts at the log end, which kafkajs looks up in the member's first fetch, after
      // listen() resolved: wait until a fetch completed, so that nothing published next is skipped.
      const [, consumer] = app.unwrap<[Kafka, Consumer, Producer]>();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`group ${groupId}: no fetch within 20 s`)), 20_000);
        const off = consumer.on(consumer.events.FETCH, () => {
          clearTimeout(timer);
          off();
          resolve();
        });
      });
      return app.get(DownstreamHandlers);
    }

    // Published as the platform's outboxes publish: source per service, key = aggregate id, the
    // entitytype and action extensions. The contracts' payload classes accept every payload.
    async function publish<T extends Topic>(
      topic: T,
      key: string,
      data: TopicPayloads[T],
      options: { action?: string; id?: string; time?: string } = {},
    ): Promise<BusEvent<TopicPayloads[T]>> {
      validateEventPayload(topic, data);
      const { entityType, action } = describeTopic(topic)!;
      return bus!.publish(topic, data, {
        key: `${run}/${key}`,
        source: topic === 'assistant.handoff_requested' ? '/services/assistant' : '/services/profiles',
        entitytype: entityType,
        ...options,
        action: options.action ?? action,
      });
    }

    async function until(done: () => boolean, ms: number): Promise<void> {
      for (const end = Date.now() + ms; !done() && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 50));
    }

    beforeAll(async () => {
      admin = new Kafka({ brokers, clientId: `${run}-admin`, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      // Partitions as the AsyncAPI document describes them; a no-op for topics that exist.
      await admin.createTopics({
        topics: TOPICS.map((topic) => ({ topic, numPartitions: 4 })),
        waitForLeaders: true,
      });
      bus = new KafkaEventBus({ brokers, clientId: `${run}-producer`, logLevel: logLevel.NOTHING });
      await Promise.all(
        groups.map(async (groupId) => {
          const handlers = await startConsumer(groupId, ['error', 'warn']);
          const record = seen.get(groupId)!;
          const handoffRequested = handlers.handoffRequested.bind(handlers);
          const profilesUpdated = handlers.profilesUpdated.bind(handlers);
          jest.spyOn(handlers, 'handoffRequested').mockImplementation(async (event) => {
            await handoffRequested(event);
            if (mine(event)) record.processed.push(event);
          });
          jest.spyOn(handlers, 'profilesUpdated').mockImplementation(async (event) => {
            await profilesUpdated(event);
            if (mine(event)) record.processed.push(event);
          });
          jest.spyOn(handlers, 'duplicateSkipped').mockImplementation(async (event) => {
            if (mine(event)) record.duplicates.push(event as CloudEvent);
          });
        }),
      );
    }, 45_000);

    afterAll(async () => {
      await Promise.allSettled(started.map(({ app }) => app.close()));
      await bus?.close().catch(() => undefined);
      await admin?.deleteGroups(started.map((s) => s.groupId)).catch(() => undefined);
      await admin?.disconnect();
    }, 30_000);

    it('delivers every event to each group exactly once, skips the repeated id, decodes the envelope', async () => {
      const handoff = (n: number, session: string, priority: AssistantHandoffRequestedPayload['priority']) =>
        ({
          handoffId: `665f1c2ab3e4d5f6a7b8c9d${n}`,
          chatId: n === 2 ? '' : `665f1c2ab3e4d5f6a7b8c9e${n}`,
          sessionId: `${run}-${session}`,
          ...(n === 1 ? { userId: 'alice', phone: '+48 600 000 000', reason: 'wants a human' } : {}),
          email: `customer${n}@example.com`,
          priority,
          transcript: `user: help ${n}\nassistant: connecting you`,
          requestedAt: `2025-01-02T03:04:0${n}Z`,
        }) satisfies AssistantHandoffRequestedPayload;
      const profile = (profileId: string, action: ProfilesUpdatedPayload['action']) =>
        ({ module: 'llm', kind: 'llm-chat', profileId, action }) satisfies ProfilesUpdatedPayload;

      const published: BusEvent[] = [];
      published.push(await publish('assistant.handoff_requested', 's-1', handoff(1, 's-1', 'high')));
      published.push(
        await publish('profiles.updated', 'llm/llm-chat/p-1', profile('p-1', 'created'), {
          action: 'created',
        }),
      );
      published.push(await publish('assistant.handoff_requested', 's-2', handoff(2, 's-2', 'low')));
      published.push(await publish('profiles.updated', 'llm/llm-chat/p-1', profile('p-1', 'updated')));
      published.push(await publish('assistant.handoff_requested', 's-1', handoff(3, 's-1', 'normal')));
      published.push(
        await publish('profiles.updated', 'llm/llm-chat/p-2', profile('p-2', 'deleted'), {
          action: 'deleted',
        }),
      );
      // The s-2 handoff a second time: same CloudEvents id, time, key and payload, as an outbox relay
      // that crashed after publishing and before marking the event sent publishes it again.
      const repeated = published[2] as BusEvent<AssistantHandoffRequestedPayload>;
      const again = await publish('assistant.handoff_requested', 's-2', repeated.data, {
        id: repeated.id,
        time: repeated.time,
      });
      expect(again).toEqual(repeated);

      const complete = () =>
        [...seen.values()].every((s) => s.processed.length >= published.length && s.duplicates.length >= 1);
      await until(complete, 30_000);
      // A second processing or a second skip would arrive right behind: give it a moment to show.
      await new Promise((r) => setTimeout(r, 1500));

      const byId = (events: CloudEvent[]) => [...events].sort((a, b) => a.id.localeCompare(b.id));
      for (const groupId of groups) {
        const { processed, duplicates } = seen.get(groupId)!;
        // Once each, and the envelope decoded from the headers (id, source, type, time, subject,
        // entitytype, action, content type) plus the payload equal what the platform's bus published.
        expect({ groupId, processed: byId(processed) }).toEqual({ groupId, processed: byId(published) });
        expect({ groupId, duplicates }).toEqual({ groupId, duplicates: [again] });
        // Per key in publish order (a key stays on one partition).
        const order = (key: string) =>
          processed.filter((e) => e.subject === `${run}/${key}`).map((e) => e.id);
        expect(order('s-1')).toEqual([published[0].id, published[4].id]);
        expect(order('llm/llm-chat/p-1')).toEqual([published[1].id, published[3].id]);
      }

      // The payloads arrive typed by the generated types.
      const handoffs = seen
        .get(groups[0])!
        .processed.filter(
          (e): e is CloudEvent<AssistantHandoffRequestedPayload> => e.type === 'assistant.handoff_requested',
        );
      const priorities: AssistantHandoffRequestedPayload['priority'][] = handoffs
        .map((e) => e.data.priority)
        .sort();
      expect(priorities).toEqual(['high', 'low', 'normal']);
      expect(handoffs.find((e) => e.data.priority === 'high')).toMatchObject({
        source: '/services/assistant',
        type: 'assistant.handoff_requested',
        subject: `${run}/s-1`,
        entitytype: 'assistant_handoff',
        action: 'requested',
        data: { userId: 'alice', email: 'customer1@example.com', sessionId: `${run}-s-1` },
      });
    }, 45_000);

    it('joins the consumer group named exactly KAFKA_GROUP_ID, not Nest’s `<id>-server`', async () => {
      const described = await admin!.describeGroups([...groups, ...groups.map((g) => `${g}-server`)]);
      const state = Object.fromEntries(
        described.groups.map((g) => [
          g.groupId,
          { state: g.state, clients: g.members.map((m) => m.clientId) },
        ]),
      );
      expect(state).toEqual({
        [groups[0]]: { state: 'Stable', clients: [groups[0]] },
        [groups[1]]: { state: 'Stable', clients: [groups[1]] },
        [`${groups[0]}-server`]: { state: 'Dead', clients: [] },
        [`${groups[1]}-server`]: { state: 'Dead', clients: [] },
      });
    });

    it('delivers an event again after its handler threw, and the repeat is not mistaken for a duplicate', async () => {
      // Silent: Nest and kafkajs log the thrown error, which is the point here.
      const handlers = await startConsumer(`${run}-c`, false);
      const attempts: string[] = [];
      const duplicates: string[] = [];
      jest.spyOn(handlers, 'profilesUpdated').mockImplementation(async (event) => {
        if (!mine(event)) return;
        attempts.push(event.id);
        if (attempts.length === 1) throw new Error('downstream database unavailable');
      });
      jest.spyOn(handlers, 'duplicateSkipped').mockImplementation(async (event) => {
        if (mine(event)) duplicates.push(event.id);
      });
      const event = await publish('profiles.updated', 'llm/llm-chat/p-3', {
        module: 'llm',
        kind: 'llm-chat',
        profileId: 'p-3',
        action: 'updated',
      });
      await until(() => attempts.length >= 2, 20_000);
      await new Promise((r) => setTimeout(r, 1000));
      expect({ attempts, duplicates }).toEqual({ attempts: [event.id, event.id], duplicates: [] });
    }, 30_000);
  },
);
