import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import type { RunStatus } from '@flowplane/flow/engine';
import { FLOW_ID } from '../../flows/flow.entities';

export const RUN_STATUSES: readonly RunStatus[] = ['running', 'completed', 'rejected', 'failed', 'cancelled'];

/** Default and largest page of GET /runs. */
export const RUNS_PAGE_DEFAULT = 50;
export const RUNS_PAGE_MAX = 200;

/** Query of GET /runs. Unknown parameters are refused (the global pipe forbids them). */
export class ListRunsQueryDto {
  @ApiPropertyOptional({ example: 'welcome-mail', description: 'Only runs of this flow.' })
  @IsOptional()
  @Matches(FLOW_ID, { message: 'flowId must be a flow id: 1-128 lowercase letters, digits, dots, dashes or underscores' })
  flowId?: string;

  @ApiPropertyOptional({ enum: RUN_STATUSES, description: 'Only runs in this status.' })
  @IsOptional()
  @IsIn(RUN_STATUSES, { message: `status must be one of ${RUN_STATUSES.join(', ')}` })
  status?: RunStatus;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only runs started at or after this time (ISO 8601, inclusive).' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only runs started before this time (ISO 8601, exclusive).' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;

  @ApiPropertyOptional({ description: '`nextCursor` of the previous page (opaque).' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: RUNS_PAGE_MAX, default: RUNS_PAGE_DEFAULT, description: 'Runs per page.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(RUNS_PAGE_MAX)
  limit?: number;
}

/** A run in a listing: no output and no timeline (GET /runs/{runId} has both). */
export class RunSummaryView {
  @ApiProperty() runId!: string;
  @ApiProperty() flowId!: string;
  @ApiProperty({ example: 'welcome-mail@v2' }) versionId!: string;
  @ApiPropertyOptional({ description: 'Variant label of a split publish.' }) variant?: string;
  @ApiProperty({ enum: RUN_STATUSES }) status!: string;
  @ApiProperty() startedBy!: string;
  @ApiProperty({ format: 'date-time' }) startedAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) finishedAt?: string;
  @ApiPropertyOptional() durationMs?: number;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: '`{code, message, nodeId?}` of a failed run.' }) error?: Record<string, unknown>;
}

/** One page of GET /runs. */
export class RunPageView {
  @ApiProperty({ type: [RunSummaryView], description: 'Newest first (by start time).' }) items!: RunSummaryView[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page; absent on the last page.' }) nextCursor?: string;
}
