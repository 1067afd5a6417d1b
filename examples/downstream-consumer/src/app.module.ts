import { Module } from '@nestjs/common';
import { Deduplicator, InMemoryProcessedEventStore, PROCESSED_EVENT_STORE } from './dedupe';
import { EventsController } from './events.controller';
import { DownstreamHandlers } from './handlers';

@Module({
  controllers: [EventsController],
  providers: [
    DownstreamHandlers,
    Deduplicator,
    // Swap for a durable store (Redis SET NX, a unique index) when a repeat after a restart matters.
    { provide: PROCESSED_EVENT_STORE, useFactory: () => new InMemoryProcessedEventStore() },
  ],
})
export class DownstreamConsumerModule {}
