import { Module } from '@nestjs/common';

/**
 * The hub feature module. Rooms, broadcast and the cross-replica bridge arrive with the hub
 * issue; the WebSocket listener itself is attached in `hub.definition.ts` once the server listens.
 */
@Module({})
export class HubModule {}
