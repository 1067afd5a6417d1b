import { Module } from '@nestjs/common';

/**
 * The assistant feature module. Its domain behaviour arrives with its own issue (see the spec);
 * the platform wiring (auth, health, metrics, logging, adapters) comes from the service kit.
 */
@Module({})
export class AssistantModule {}
