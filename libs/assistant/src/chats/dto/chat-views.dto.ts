import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Chat, ChatMessage } from '../domain/chat.entity';

export class ChatMessageView {
  @ApiProperty({ enum: ['user', 'assistant'] }) role!: string;
  @ApiProperty() content!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } }) sources?: unknown[];
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } }) actions?: unknown[];
  @ApiPropertyOptional() runId?: string;
  @ApiPropertyOptional({ enum: ['completed', 'rejected'] }) status?: string;
  @ApiPropertyOptional({ enum: ['up', 'down'] }) rating?: string;
}

/** GET /assistant/chats/me/{sessionId}. */
export class TranscriptView {
  @ApiProperty() sessionId!: string;
  @ApiProperty({ type: [ChatMessageView] }) messages!: ChatMessageView[];
  @ApiPropertyOptional() handoffId?: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

export class ChatItemView {
  @ApiProperty() id!: string;
  @ApiProperty() sessionId!: string;
  @ApiPropertyOptional() userId?: string;
  @ApiProperty() flowId!: string;
  @ApiProperty() versionHash!: string;
  @ApiProperty() variantLabel!: string;
  @ApiProperty() messageCount!: number;
  @ApiProperty({ format: 'date-time' }) lastActivityAt!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiPropertyOptional() handoffId?: string;
}

export class ChatDetailView extends ChatItemView {
  @ApiProperty({ type: [ChatMessageView] }) messages!: ChatMessageView[];
  @ApiProperty({ type: [String] }) runIds!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class ChatPageView {
  @ApiProperty({ type: [ChatItemView] }) items!: ChatItemView[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page; absent on the last page.' }) nextCursor?: string;
}

export class FeedbackView {
  @ApiProperty() ok!: boolean;
}

export class VariantStatsView {
  @ApiProperty() variantLabel!: string;
  @ApiProperty() chats!: number;
  @ApiProperty() turns!: number;
  @ApiProperty() handoffs!: number;
  @ApiProperty() up!: number;
  @ApiProperty() down!: number;
  @ApiPropertyOptional({ nullable: true, description: 'Median ms from the message to the first token (or the reply).' }) p50FirstTokenMs!: number | null;
  @ApiPropertyOptional({ nullable: true }) p95FirstTokenMs!: number | null;
  @ApiProperty() tokens!: number;
  @ApiPropertyOptional({ nullable: true }) cost!: number | null;
  @ApiPropertyOptional({ nullable: true }) currency!: string | null;
}

export class StatsView {
  @ApiProperty({ format: 'date-time' }) from!: string;
  @ApiProperty({ format: 'date-time' }) to!: string;
  @ApiProperty({ type: [VariantStatsView] }) variants!: VariantStatsView[];
}

export function messageView(m: ChatMessage): ChatMessageView {
  return {
    role: m.role,
    content: m.content,
    at: m.at.toISOString(),
    ...(m.sources ? { sources: m.sources } : {}),
    ...(m.actions ? { actions: m.actions } : {}),
    ...(m.runId ? { runId: m.runId } : {}),
    ...(m.status ? { status: m.status } : {}),
    ...(m.rating ? { rating: m.rating } : {}),
  };
}

export function chatItemView(c: Chat): ChatItemView {
  return {
    id: c.id,
    sessionId: c.sessionId,
    ...(c.userId ? { userId: c.userId } : {}),
    flowId: c.flowId,
    versionHash: c.versionHash,
    variantLabel: c.variantLabel,
    messageCount: c.messages.length,
    lastActivityAt: c.lastActivityAt.toISOString(),
    expiresAt: c.expiresAt.toISOString(),
    ...(c.handoffId ? { handoffId: c.handoffId } : {}),
  };
}

export function chatDetailView(c: Chat): ChatDetailView {
  return { ...chatItemView(c), messages: c.messages.map(messageView), runIds: c.runIds, createdAt: c.createdAt.toISOString() };
}
