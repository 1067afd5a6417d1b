import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { AdminRoute } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { type OutboxMail, MailOutboxRepository } from './mail-outbox.repository';

export class OutboxQueryDto {
  @ApiPropertyOptional({ description: '`nextCursor` of the previous page.' }) @IsOptional() @IsString() @MaxLength(500) cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

export class OutboxMailView {
  @ApiProperty({ description: 'The `email.send` envelope id.' }) id!: string;
  @ApiProperty() from!: string;
  @ApiProperty({ type: [String] }) to!: string[];
  @ApiPropertyOptional({ type: [String] }) cc?: string[];
  @ApiPropertyOptional({ type: [String] }) bcc?: string[];
  @ApiPropertyOptional() replyTo?: string;
  @ApiProperty() subject!: string;
  @ApiPropertyOptional() text?: string;
  @ApiPropertyOptional() html?: string;
  @ApiPropertyOptional({ type: [String] }) tags?: string[];
  @ApiPropertyOptional() correlationId?: string;
  @ApiPropertyOptional({ description: 'Service that published the mail.' }) source?: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class OutboxPageView {
  @ApiProperty({ type: [OutboxMailView] }) items!: OutboxMailView[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page; absent on the last page.' }) nextCursor?: string;
}

function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.getTime(), id])).toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [t, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof t === 'number' && Number.isFinite(t) && typeof id === 'string') return { at: new Date(t), id };
  } catch {
    /* falls through */
  }
  throw new DomainException('INVALID_CURSOR', 400, 'cursor is not a nextCursor of this listing');
}

function view(m: OutboxMail): OutboxMailView {
  return { ...m, createdAt: m.createdAt.toISOString() };
}

/** The dev outbox: what the mailer kept instead of sending because SMTP_URL is unset (admin). */
@ApiTags('mail')
@ApiBearerAuth()
@Controller('admin/mail')
export class MailOutboxController {
  constructor(private readonly outbox: MailOutboxRepository) {}

  @Get('outbox')
  @AdminRoute()
  @ApiOperation({ summary: 'Mails the platform would have sent (SMTP_URL unset), newest first; paged with an opaque cursor' })
  @ApiOkResponse({ type: OutboxPageView })
  @ApiBadRequestResponse({ description: 'Invalid limit or cursor.' })
  async list(@Query() q: OutboxQueryDto): Promise<OutboxPageView> {
    const page = await this.outbox.list(q.limit ?? 50, q.cursor ? decodeCursor(q.cursor) : undefined);
    return { items: page.items.map(view), ...(page.next ? { nextCursor: encodeCursor(page.next.at, page.next.id) } : {}) };
  }
}
