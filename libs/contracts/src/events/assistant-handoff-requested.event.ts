import { IsEmail, IsIn, IsNotEmpty, IsOptional, IsRFC3339, IsString } from 'class-validator';

/** Priorities a handoff event may carry (the node setting's `urgent` is not part of the event enum). */
export const HANDOFF_PRIORITIES = ['low', 'normal', 'high'] as const;
/** Priority of a handoff request. */
export type HandoffPriority = (typeof HANDOFF_PRIORITIES)[number];

/**
 * Payload of `assistant.handoff_requested` (assistant-deployments-profiles.md, Events).
 * Field names and optionality are exactly the spec's table.
 */
export class AssistantHandoffRequestedPayload {
  /** Id of the stored HandoffRequest (an ObjectId hex string on MongoDB). */
  @IsString()
  @IsNotEmpty()
  handoffId!: string;

  /** Id of the linked chat; the empty string when no chat exists. */
  @IsString()
  chatId!: string;

  @IsString()
  @IsNotEmpty()
  sessionId!: string;

  /** Authenticated callers only. */
  @IsOptional()
  @IsString()
  userId?: string;

  /** Always set. */
  @IsEmail()
  email!: string;

  @IsOptional()
  @IsString()
  phone?: string;

  /** Free-form. */
  @IsOptional()
  @IsString()
  reason?: string;

  @IsIn(HANDOFF_PRIORITIES)
  priority!: HandoffPriority;

  /** Plain-text dump of the conversation at request time. */
  @IsString()
  transcript!: string;

  /** RFC 3339 timestamp. */
  @IsRFC3339()
  requestedAt!: string;
}
