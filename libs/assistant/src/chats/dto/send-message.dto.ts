import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { Type } from 'class-transformer';
import { SESSION_ID_PATTERN } from '../domain/chat.entity';

/** Body of POST /assistant/messages. */
export class SendMessageDto {
  @ApiPropertyOptional({ description: 'The chat session; omitted on the first message (the answer header X-Assistant-Session-Id names the new one).', pattern: SESSION_ID_PATTERN.source, example: 's-4f9c2a1e' })
  @IsOptional()
  @IsString()
  @Matches(SESSION_ID_PATTERN, { message: 'sessionId must be 8 to 128 letters, digits, _ or -' })
  sessionId?: string;

  @ApiProperty({ description: 'The user message (1 to ASSISTANT_MAX_MESSAGE_CHARS characters, default 4000).', example: 'Hello!' })
  @IsString()
  message!: string;

  @ApiPropertyOptional({ description: 'String fields for the flow, for example `intent: handoff` with `email`, `reason`, `priority`.', type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  meta?: Record<string, string>;
}

/** Body of POST /assistant/feedback. */
export class FeedbackDto {
  @ApiProperty({ pattern: SESSION_ID_PATTERN.source })
  @IsString()
  @Matches(SESSION_ID_PATTERN, { message: 'sessionId must be 8 to 128 letters, digits, _ or -' })
  sessionId!: string;

  @ApiProperty({ description: 'The run of the assistant turn (the session frame\'s runId).' })
  @IsString()
  @MaxLength(100)
  runId!: string;

  @ApiProperty({ enum: ['up', 'down'] })
  @IsIn(['up', 'down'])
  rating!: 'up' | 'down';

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  comment?: string;
}

/** Query of GET /assistant/chats. */
export class ListChatsQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(300) userId?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(200) flowId?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) variantLabel?: string;
  @ApiPropertyOptional({ description: 'nextCursor of the previous page.' }) @IsOptional() @IsString() @MaxLength(500) cursor?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 }) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;
}

/** Query of GET /admin/assistant/stats. */
export class StatsQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Default: 30 days before `to`.' }) @IsOptional() @IsString() from?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Default: now.' }) @IsOptional() @IsString() to?: string;
}
