import { Injectable, Logger } from '@nestjs/common';
import type { CloudEvent, CloudEventAttributes } from './cloud-event';
import type { AssistantHandoffRequestedPayload, ProfilesUpdatedPayload } from './events.generated';

/**
 * Your business logic: one method per topic, called once per event (repeats are filtered before).
 * Resolve when the work is done; throw to have Kafka deliver the event again.
 */
@Injectable()
export class DownstreamHandlers {
  private readonly log = new Logger('DownstreamHandlers');

  /** A customer asked for a human: open a ticket, page the on-call agent, … */
  async handoffRequested(event: CloudEvent<AssistantHandoffRequestedPayload>): Promise<void> {
    const { handoffId, priority, sessionId } = event.data;
    this.log.log(
      `handoff ${handoffId} requested (priority ${priority}, session ${sessionId}, event ${event.id})`,
    );
  }

  /** A profile was written: drop what you cached about it. */
  async profilesUpdated(event: CloudEvent<ProfilesUpdatedPayload>): Promise<void> {
    const { module, kind, profileId, action } = event.data;
    this.log.log(`profile ${module}/${kind}/${profileId} ${action} (event ${event.id})`);
  }

  /** An event that was processed already arrived again and was skipped. */
  async duplicateSkipped(event: CloudEventAttributes): Promise<void> {
    this.log.debug(`skipped repeated ${event.type} event ${event.id} from ${event.source}`);
  }
}
