import type { ServiceClient } from '../http/service-client';
import { ServiceCallError } from '../http/service-client.errors';

/** The assistant's internal route that files a handoff (the HTTP route and the flow node share its use case). */
export const ASSISTANT_HANDOFF_INTERNAL_PATH = '/internal/assistant/handoffs';

/** Statuses of a handoff request (spec: States and transitions). */
export const HANDOFF_STATUSES = ['pending', 'contacted', 'resolved', 'dismissed'] as const;
/** Status of a handoff request. */
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

/** Priorities a request may ask for: the event's three, plus the node setting's `urgent` (recorded as `high`). */
export const HANDOFF_REQUEST_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
/** Priority of an incoming handoff request. */
export type HandoffRequestPriority = (typeof HANDOFF_REQUEST_PRIORITIES)[number];

/** Body of the internal handoff route: the node's Request port. */
export interface InternalHandoffRequest {
  sessionId: string;
  email: string;
  phone?: string;
  reason?: string;
  priority?: HandoffRequestPriority;
  /** The authenticated user the run serves, when there is one. */
  userId?: string;
}

/** The node's Handoff port: the request filed, or the pending one of the session (`duplicate`). */
export interface HandoffOutcome {
  handoffId: string;
  status: HandoffStatus;
  duplicate: boolean;
}

/** What the internal route answers: 201 with this, or 409 with the standard error body plus these fields. */
export interface InternalHandoffAnswer {
  handoffId: string;
  status: HandoffStatus;
}

/**
 * Typed client of the assistant's internal handoff route. A 409 (a pending handoff of the session
 * exists, rule 5) is an answer, not an error: it resolves with `duplicate: true` and the existing id.
 * Anything else that is not a 2xx rejects with the `ServiceCallError` (403 while handoff is disabled,
 * 400 for a malformed request) or `ServiceUnavailableError` (the assistant is down).
 */
export class AssistantHandoffClient {
  constructor(private readonly client: ServiceClient) {}

  async request(body: InternalHandoffRequest, options: { signal?: AbortSignal } = {}): Promise<HandoffOutcome> {
    try {
      const answer = await this.client.post<InternalHandoffAnswer>(ASSISTANT_HANDOFF_INTERNAL_PATH, body, { signal: options.signal });
      return { handoffId: answer.handoffId, status: answer.status, duplicate: false };
    } catch (e) {
      const existing = e instanceof ServiceCallError && e.status === 409 ? duplicateOf(e.body) : undefined;
      if (existing) return existing;
      throw e;
    }
  }
}

function duplicateOf(body: unknown): HandoffOutcome | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { handoffId, status } = body as { handoffId?: unknown; status?: unknown };
  if (typeof handoffId !== 'string' || !handoffId) return undefined;
  return { handoffId, status: (HANDOFF_STATUSES as readonly unknown[]).includes(status) ? (status as HandoffStatus) : 'pending', duplicate: true };
}
