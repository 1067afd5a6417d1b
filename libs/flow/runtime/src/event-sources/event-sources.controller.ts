import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { AdminRoute } from '@flowplane/platform/auth';
import { EventSourcesService } from './event-sources.service';

export class SubscriptionView {
  @ApiProperty() flowId!: string;
  @ApiProperty() versionId!: string;
  @ApiProperty({ example: 'assistant.handoff_requested' }) topic!: string;
  @ApiProperty() groupId!: string;
  @ApiProperty({ enum: ['subscribing', 'active', 'stopped', 'failed'] }) state!: string;
  @ApiProperty() processed!: number;
  @ApiProperty({ description: 'Runs that failed (each retry counts).' }) failedRuns!: number;
  @ApiPropertyOptional() lastError?: string;
  @ApiPropertyOptional({ format: 'date-time' }) lastEventAt?: string;
  @ApiPropertyOptional({ description: 'Events published but not yet processed by the group.' }) lag?: number;
  @ApiPropertyOptional({ description: 'Times this replica\'s consumer re-joined its group after its first join (a rebalance or a restart); each may redeliver events not yet committed. Absent on the in-memory bus.' }) rebalances?: number;
  @ApiPropertyOptional({ description: 'Set when a subscriber deployment consumes for this flow.' }) deploymentId?: string;
  @ApiPropertyOptional({ description: 'Events the deployment filter (x-event-filter) skipped.' }) filtered?: number;
  @ApiPropertyOptional({ description: 'Runs of a subscriber deployment this replica has started and waits for; each event is committed once its run ends.' }) running?: number;
  @ApiPropertyOptional({ format: 'date-time', description: 'Start of the oldest run counted in `running`: a time far in the past shows a run that does not end, which holds its partition back.' }) runningSince?: string;
}

@ApiTags('flows')
@ApiBearerAuth()
@Controller('flows')
export class EventSourcesController {
  constructor(private readonly sources: EventSourcesService) {}

  @Get(':id/subscriptions')
  @AdminRoute()
  @ApiOperation({ summary: 'The bus subscriptions of an event-source flow: state, processed and failed counts, lag' })
  @ApiOkResponse({ type: [SubscriptionView] })
  subscriptions(@Param('id') id: string): Promise<SubscriptionView[]> {
    return this.sources.states(id);
  }
}
