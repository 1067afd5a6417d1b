import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRouteFastPath, SERVICE_CONFIG, type ServiceConfig, type ServiceContext } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { SESSION_ID_PATTERN } from '../domain/chat.entity';
import { SendMessageDto } from '../dto/send-message.dto';
import { ChatRateLimits } from '../use-cases/chat-rate-limits';
import { SendMessageUseCase } from '../use-cases/send-message.use-case';
import { AssistantChatController, answerChatMessage } from './assistant-chat.controller';

/** The chat route as Express routes it (the metrics label and the access line of the Nest route). */
export const CHAT_MESSAGES_PATH = '/api/v1/assistant/messages';

const FIELDS = new Set(['sessionId', 'message', 'meta']);

/**
 * `POST /api/v1/assistant/messages` in front of Express (`jsonRouteFastPath`): every chat message
 * comes here, and the request stack was as much of its cost as the chat itself. It takes anonymous
 * callers (when ASSISTANT_ANONYMOUS_ALLOWED) and callers whose token the assistant has verified
 * already; the answer, its limits and its errors are the Nest route's (`answerChatMessage`).
 */
export function chatMessageFastPath(app: INestApplication, ctx: ServiceContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const env = app.get<ServiceConfig & AssistantEnv>(SERVICE_CONFIG);
  const deps = { send: app.get(SendMessageUseCase), limits: app.get(ChatRateLimits), env };
  return jsonRouteFastPath(app, ctx, {
    path: CHAT_MESSAGES_PATH,
    controller: AssistantChatController,
    handler: AssistantChatController.prototype.messages,
    dto: SendMessageDto,
    plainlyValid,
    // Refused anonymous callers get their 401 from the Nest route.
    admit: (_req, who) => who !== undefined || env.ASSISTANT_ANONYMOUS_ALLOWED,
    handle: ({ who, dto, req, res }) => answerChatMessage(deps, dto, who, req, res),
  });
}

/** True when SendMessageDto certainly accepts `body`; anything else goes through the validation pipe. */
export function plainlyValid(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!FIELDS.has(k)) return false;
  if (typeof b.message !== 'string') return false;
  if (b.sessionId !== undefined && (typeof b.sessionId !== 'string' || !SESSION_ID_PATTERN.test(b.sessionId))) return false;
  if (b.meta !== undefined && (b.meta === null || typeof b.meta !== 'object' || Array.isArray(b.meta))) return false;
  return true;
}
