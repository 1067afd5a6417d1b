import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HANDOFF_PRIORITIES, HANDOFF_REQUEST_PRIORITIES, type HandoffPriority, type HandoffRequestPriority } from '@flowplane/contracts';
import { IsEmail, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { SESSION_ID_PATTERN } from '../../chats/domain/chat.entity';

/** Body of POST /assistant/handoff. */
export class RequestHandoffDto {
  @ApiProperty({ example: 'k3Jx9-sessionA', description: 'The chat session (`[A-Za-z0-9_-]{8,128}`).' })
  @IsString()
  @Matches(SESSION_ID_PATTERN, { message: 'sessionId must be 8 to 128 letters, digits, _ or -' })
  sessionId!: string;

  @ApiProperty({ example: 'ada@example.com' })
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(320)
  email!: string;

  @ApiPropertyOptional({ example: '+44 20 7946 0000' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  phone?: string;

  @ApiPropertyOptional({ example: 'Question about my invoice', description: 'Free-form.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;

  @ApiPropertyOptional({ enum: HANDOFF_PRIORITIES, default: 'normal' })
  @IsOptional()
  @IsIn(HANDOFF_PRIORITIES, { message: `priority must be one of ${HANDOFF_PRIORITIES.join(', ')}` })
  priority?: HandoffPriority;
}

/** Body of the internal route the `svc/assistant-handoff-request` node calls. */
export class InternalHandoffDto {
  @ApiProperty()
  @IsString()
  @Matches(SESSION_ID_PATTERN, { message: 'sessionId must be 8 to 128 letters, digits, _ or -' })
  sessionId!: string;

  @ApiProperty()
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(320)
  email!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  phone?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;

  @ApiPropertyOptional({ enum: HANDOFF_REQUEST_PRIORITIES, description: '`urgent` is recorded and announced as `high`.' })
  @IsOptional()
  @IsIn(HANDOFF_REQUEST_PRIORITIES, { message: `priority must be one of ${HANDOFF_REQUEST_PRIORITIES.join(', ')}` })
  priority?: HandoffRequestPriority;

  @ApiPropertyOptional({ description: 'The authenticated user the run serves.' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  userId?: string;
}
