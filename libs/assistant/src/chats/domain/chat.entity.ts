/** Who wrote a turn of a chat. */
export type ChatRole = 'user' | 'assistant';

/** A link shown under an assistant reply (rule 10). */
export interface ChatSource {
  title?: string;
  url?: string;
  [key: string]: unknown;
}

/** A button offered with an assistant reply (rule 10). */
export interface ChatAction {
  label?: string;
  [key: string]: unknown;
}

/** One turn of a chat; assistant turns carry the run that wrote them and the user's rating. */
export interface ChatMessage {
  role: ChatRole;
  content: string;
  at: Date;
  sources?: ChatSource[];
  actions?: ChatAction[];
  runId?: string;
  /** `completed`, or `rejected` for a refusal, `failed` when the run failed (assistant turns). */
  status?: string;
  rating?: 'up' | 'down';
  comment?: string;
  /** Milliseconds from the user's message to the first frame of the answer (assistant turns). */
  firstTokenMs?: number;
}

/** A conversation (collection `assistant_chats`), as the repository returns it. */
export interface Chat {
  id: string;
  sessionId: string;
  userId?: string;
  flowId: string;
  versionHash: string;
  variantLabel: string;
  messages: ChatMessage[];
  runIds: string[];
  expiresAt: Date;
  handoffId?: string;
  lastActivityAt: Date;
  createdAt: Date;
}

/** What the first message of a session stamps on the chat it creates. */
export interface ChatStamp {
  sessionId: string;
  userId?: string;
  flowId: string;
  versionHash: string;
  variantLabel: string;
}

/** Session ids travel in headers and paths: 8 to 128 letters, digits, `_` and `-`. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

/** Expiry of a chat appended to at `now` (rule 2: every append moves it). */
export function chatExpiry(now: Date, ttlDays: number): Date {
  return new Date(now.getTime() + ttlDays * 86_400_000);
}

/** Plain-text snapshot of a chat: one `role: content` line per turn (the handoff transcript). */
export function transcriptOf(messages: readonly Pick<ChatMessage, 'role' | 'content'>[]): string {
  return messages.map((m) => `${m.role}: ${m.content.replace(/\r?\n/g, ' ')}`).join('\n');
}
