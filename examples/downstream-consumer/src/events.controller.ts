import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, type KafkaContext, Payload } from '@nestjs/microservices';
import { type CloudEvent, decodeCloudEvent, InvalidEventError } from './cloud-event';
import { Deduplicator } from './dedupe';
import type {
  AssistantHandoffRequestedPayload,
  ProfilesUpdatedPayload,
  Topic,
  TopicPayloads,
} from './events.generated';
import { DownstreamHandlers } from './handlers';

/**
 * One `@EventPattern` per Flowplane topic (the pattern is the Kafka topic name). Nest hands over the
 * JSON-parsed value as `@Payload()` and the raw message, with its `ce_*` headers, through
 * `@Ctx() KafkaContext`. The offset is committed once the handler resolved; when it throws, kafkajs
 * delivers the message again.
 */
@Controller()
export class EventsController {
  private readonly log = new Logger('EventsController');

  constructor(
    private readonly dedupe: Deduplicator,
    private readonly handlers: DownstreamHandlers,
  ) {}

  @EventPattern('assistant.handoff_requested')
  async onHandoffRequested(
    @Payload() data: AssistantHandoffRequestedPayload,
    @Ctx() ctx: KafkaContext,
  ): Promise<void> {
    await this.consume('assistant.handoff_requested', data, ctx, (event) =>
      this.handlers.handoffRequested(event),
    );
  }

  @EventPattern('profiles.updated')
  async onProfilesUpdated(@Payload() data: ProfilesUpdatedPayload, @Ctx() ctx: KafkaContext): Promise<void> {
    await this.consume('profiles.updated', data, ctx, (event) => this.handlers.profilesUpdated(event));
  }

  /** Decode, skip repeats, run the handler. */
  private async consume<T extends Topic>(
    topic: T,
    data: unknown,
    ctx: KafkaContext,
    handle: (event: CloudEvent<TopicPayloads[T]>) => Promise<void>,
  ): Promise<void> {
    let event: CloudEvent<TopicPayloads[T]>;
    try {
      event = decodeCloudEvent(topic, data, ctx.getMessage());
    } catch (err) {
      if (!(err instanceof InvalidEventError)) throw err;
      // Retrying cannot fix a malformed message and would block its partition: log it and let it be committed.
      this.log.error(
        `skipped ${ctx.getTopic()}[${ctx.getPartition()}]@${ctx.getMessage().offset}: ${err.message}`,
      );
      return;
    }
    const ran = await this.dedupe.once(event, () => handle(event));
    if (!ran) await this.handlers.duplicateSkipped(event);
  }
}
