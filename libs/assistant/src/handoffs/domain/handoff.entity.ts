import { HANDOFF_PRIORITIES, type HandoffPriority, type HandoffRequestPriority, HANDOFF_STATUSES, type HandoffStatus } from '@flowplane/contracts';

export { HANDOFF_PRIORITIES, HANDOFF_STATUSES, type HandoffPriority, type HandoffStatus };

/** A request for a human (collection `assistant_handoffs`, kept permanently). */
export interface Handoff {
  id: string;
  /** The linked chat's id; empty when the session had no live chat. */
  chatId: string;
  sessionId: string;
  userId?: string;
  email: string;
  phone?: string;
  reason?: string;
  priority: HandoffPriority;
  status: HandoffStatus;
  /** Plain-text snapshot of the chat at request time (`role: content` lines). */
  transcript: string;
  contactedAt?: Date;
  contactedBy?: string;
  notes?: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What a caller asks for: the public route's body or the flow node's Request packet. */
export interface HandoffRequest {
  sessionId: string;
  email: string;
  phone?: string;
  reason?: string;
  priority?: HandoffRequestPriority;
  userId?: string;
}

/** The priority recorded and announced: the node setting's `urgent` is `high` (the event knows three). */
export function recordedPriority(priority: HandoffRequestPriority | undefined): HandoffPriority {
  if (priority === 'urgent') return 'high';
  return priority ?? 'normal';
}

/** Statuses a handoff can leave: resolved and dismissed are final. */
export function isFinal(status: HandoffStatus): boolean {
  return status === 'resolved' || status === 'dismissed';
}
