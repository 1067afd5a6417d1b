import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HANDOFF_PRIORITIES, HANDOFF_STATUSES, type HandoffPriority, type HandoffStatus } from '@flowplane/contracts';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { Handoff } from '../domain/handoff.entity';

/** Answer of POST /assistant/handoff. */
export class HandoffFiledView {
  @ApiProperty({ example: true })
  ok!: boolean;

  @ApiProperty({ example: 'Thanks, a person will get back to you by e-mail.' })
  message!: string;

  @ApiProperty({ example: '665f1c2e8a4b3c0012ab34cd' })
  handoffId!: string;
}

/** 409 of POST /assistant/handoff: the standard error body plus the pending request. */
export class HandoffPendingView {
  @ApiProperty({ example: 409 }) statusCode!: number;
  @ApiProperty({ example: 'Conflict' }) error!: string;
  @ApiProperty({ example: 'HANDOFF_PENDING' }) code!: string;
  @ApiProperty() message!: string;
  @ApiProperty() requestId!: string;
  @ApiProperty({ example: false }) ok!: boolean;
  @ApiProperty({ description: 'The pending request of the session.' }) handoffId!: string;
  @ApiProperty({ enum: HANDOFF_STATUSES }) status!: HandoffStatus;
}

/** Answer of the internal route: the filed request (201), or on 409 the error body with these fields. */
export class InternalHandoffView {
  @ApiProperty() handoffId!: string;
  @ApiProperty({ enum: HANDOFF_STATUSES }) status!: HandoffStatus;
}

/** A handoff as the admin routes show it; timestamps are ISO 8601 strings. */
export class HandoffView {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'Empty when the session had no chat.' }) chatId!: string;
  @ApiProperty() sessionId!: string;
  @ApiPropertyOptional() userId?: string;
  @ApiProperty() email!: string;
  @ApiPropertyOptional() phone?: string;
  @ApiPropertyOptional() reason?: string;
  @ApiProperty({ enum: HANDOFF_PRIORITIES }) priority!: HandoffPriority;
  @ApiProperty({ enum: HANDOFF_STATUSES }) status!: HandoffStatus;
  @ApiProperty({ description: 'Plain-text snapshot of the chat at request time, one `role: content` line per turn.' }) transcript!: string;
  @ApiPropertyOptional({ format: 'date-time' }) contactedAt?: string;
  @ApiPropertyOptional({ description: 'The `sub` of the operator who marked it contacted.' }) contactedBy?: string;
  @ApiPropertyOptional() notes?: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** A page of handoffs. */
export class HandoffListView {
  @ApiProperty({ type: [HandoffView] }) items!: HandoffView[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page; absent on the last page.' }) nextCursor?: string;
}

/** Query of GET /assistant/handoffs. */
export class ListHandoffsQuery {
  @ApiPropertyOptional({ enum: [...HANDOFF_STATUSES, 'all'], default: 'pending' })
  @IsOptional()
  @IsIn([...HANDOFF_STATUSES, 'all'], { message: `status must be one of ${[...HANDOFF_STATUSES, 'all'].join(', ')}` })
  status?: HandoffStatus | 'all';

  @ApiPropertyOptional({ description: '`nextCursor` of the previous page (opaque).' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

/** Body of PATCH /assistant/handoffs/{id}. */
export class UpdateHandoffDto {
  @ApiProperty({ enum: HANDOFF_STATUSES })
  @IsIn(HANDOFF_STATUSES, { message: `status must be one of ${HANDOFF_STATUSES.join(', ')}` })
  status!: HandoffStatus;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  notes?: string;
}

export function handoffView(h: Handoff): HandoffView {
  const view: HandoffView = {
    id: h.id,
    chatId: h.chatId,
    sessionId: h.sessionId,
    email: h.email,
    priority: h.priority,
    status: h.status,
    transcript: h.transcript,
    createdAt: h.createdAt.toISOString(),
    updatedAt: h.updatedAt.toISOString(),
  };
  if (h.userId) view.userId = h.userId;
  if (h.phone) view.phone = h.phone;
  if (h.reason) view.reason = h.reason;
  if (h.contactedAt) view.contactedAt = h.contactedAt.toISOString();
  if (h.contactedBy) view.contactedBy = h.contactedBy;
  if (h.notes !== undefined) view.notes = h.notes;
  return view;
}
