import type { ChatAction, ChatSource } from './chat.entity';

/** Data of the first frame of a chat stream. */
export interface SessionFrame {
  sessionId: string;
  runId: string;
  flowId: string;
  versionId: string;
  variant: string;
}

/** Data of the terminal `message` frame: the reply, stored before it is sent. */
export interface MessageFrame {
  content: string;
  sources: ChatSource[];
  actions: ChatAction[];
  status: 'completed' | 'rejected';
  /** What the answer could not use (a knowledge index that does not exist, ...); only when there is some. */
  warnings?: string[];
}

/** Data of the terminal `error` frame. */
export interface ErrorFrame {
  code: string;
  message: string;
  errorId: string;
}

/** A run event as flow-runtime streams it. */
export interface RunEventIn {
  seq: number;
  type: string;
  data: Record<string, unknown> | null;
}

/** What a run event means to a chat: its session frame, a token, the end, or nothing. */
export type ChatStep =
  | { kind: 'started'; seq: number; versionId: string }
  | { kind: 'token'; seq: number; data: { chunk: string; index: number; nodeId?: string } }
  | { kind: 'reply'; seq: number; reply: MessageFrame }
  | { kind: 'failed'; seq: number; code: string; message: string }
  | { kind: 'skip' };

/** The reply a run's end packet carries: `content` (or `text`, `reply`, a plain string), `sources`, `actions`. */
export function replyOf(output: unknown, status: MessageFrame['status']): MessageFrame {
  const o = output !== null && typeof output === 'object' && !Array.isArray(output) ? (output as Record<string, unknown>) : {};
  const text = typeof output === 'string' ? output : [o.content, o.text, o.reply, o.message].find((v) => typeof v === 'string');
  const warnings = Array.isArray(o.warnings) ? o.warnings.filter((w): w is string => typeof w === 'string' && w.length > 0) : [];
  return {
    content: (text as string | undefined) ?? '',
    sources: Array.isArray(o.sources) ? (o.sources as ChatSource[]) : [],
    actions: Array.isArray(o.actions) ? (o.actions as ChatAction[]) : [],
    status,
    ...(warnings.length ? { warnings } : {}),
  };
}

/** The run event types `chatStepOf` reads: the only ones a chat asks flow-runtime to stream. */
export const CHAT_RUN_EVENTS: readonly string[] = Object.freeze(['run.started', 'token', 'run.completed', 'run.rejected', 'run.failed', 'run.cancelled']);

/** Maps one run event onto the chat stream (the assistant frame contract). */
export function chatStepOf(e: RunEventIn): ChatStep {
  const d = e.data ?? {};
  switch (e.type) {
    case 'run.started':
      return { kind: 'started', seq: e.seq, versionId: typeof d.versionId === 'string' ? d.versionId : '' };
    case 'token':
      return { kind: 'token', seq: e.seq, data: { chunk: String(d.chunk ?? ''), index: Number(d.index ?? 0), ...(typeof d.nodeId === 'string' ? { nodeId: d.nodeId } : {}) } };
    case 'run.completed':
      return { kind: 'reply', seq: e.seq, reply: replyOf(d.output, 'completed') };
    case 'run.rejected':
      return { kind: 'reply', seq: e.seq, reply: replyOf(d.output, 'rejected') };
    case 'run.failed': {
      const err = (d.error ?? {}) as { code?: unknown; message?: unknown };
      return { kind: 'failed', seq: e.seq, code: typeof err.code === 'string' ? err.code : 'RUN_FAILED', message: typeof err.message === 'string' ? err.message : 'the flow failed' };
    }
    case 'run.cancelled':
      return { kind: 'failed', seq: e.seq, code: 'RUN_CANCELLED', message: 'the run was cancelled' };
    default:
      return { kind: 'skip' };
  }
}
