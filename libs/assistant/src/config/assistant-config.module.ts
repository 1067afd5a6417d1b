import { Module } from '@nestjs/common';
import { UpstreamModule } from '../upstream/upstream.module';
import { AssistantConfigController } from './http/assistant-config.controller';
import { ReadConfigUseCase } from './use-cases/read-config.use-case';

/** GET /assistant/config. */
@Module({ imports: [UpstreamModule], controllers: [AssistantConfigController], providers: [ReadConfigUseCase] })
export class AssistantConfigModule {}
