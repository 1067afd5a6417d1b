import { Controller, Get, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiQuery, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { SESSION_ID_PATTERN } from '../../chats/domain/chat.entity';
import { ReadConfigUseCase } from '../use-cases/read-config.use-case';

export class CapabilitiesView {
  @ApiProperty({ description: 'The published flow has a svc/assistant-handoff-request node and ASSISTANT_HANDOFF_ENABLED is true.' }) handoff!: boolean;
  @ApiProperty() escalation!: boolean;
  @ApiProperty() streaming!: boolean;
}

export class AssistantConfigView {
  @ApiProperty() flowId!: string;
  @ApiProperty() flowName!: string;
  @ApiProperty({ description: 'Mirror of capabilities.handoff: the flow can hand off and ASSISTANT_HANDOFF_ENABLED is true.' }) handoffEnabled!: boolean;
  @ApiProperty() anonymousAllowed!: boolean;
  @ApiProperty() chatTtlDays!: number;
  @ApiProperty() maxMessageChars!: number;
  @ApiProperty({ type: CapabilitiesView }) capabilities!: CapabilitiesView;
  @ApiPropertyOptional({ description: 'The variant the session buckets into; only with ?sessionId.' }) activeVariant?: string;
}

/** What the chat widget may offer (public). */
@ApiTags('assistant')
@Controller('assistant')
export class AssistantConfigController {
  constructor(private readonly config: ReadConfigUseCase) {}

  @Get('config')
  @Public()
  @ApiOperation({ summary: "The assistant's capabilities from its published flow, and the variant of a session" })
  @ApiQuery({ name: 'sessionId', required: false })
  @ApiOkResponse({ type: AssistantConfigView })
  @ApiConflictResponse({ description: 'Every variant of the assistant deployment has weight 0: code NO_ELIGIBLE_VARIANT, with `deploymentId`.' })
  @ApiServiceUnavailableResponse({ description: 'deployments or flow-runtime is unavailable, or the flow is not published.' })
  async get(@Query('sessionId') sessionId?: string): Promise<AssistantConfigView> {
    if (sessionId !== undefined && !SESSION_ID_PATTERN.test(sessionId)) throw new DomainException('INVALID_SESSION_ID', 400, 'sessionId must be 8 to 128 letters, digits, _ or -');
    return this.config.execute(sessionId);
  }
}
