import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiForbiddenResponse, ApiHeader, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CurrentPrincipal, type Principal, Public } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { FeedbackView, messageView, TranscriptView } from '../dto/chat-views.dto';
import { FeedbackDto, SendMessageDto } from '../dto/send-message.dto';
import type { ChatRelay } from '../use-cases/chat-relay';
import { ChatQueries } from '../use-cases/chat.queries';
import { ChatRateLimits } from '../use-cases/chat-rate-limits';
import { RateReplyUseCase } from '../use-cases/rate-reply.use-case';
import { ResumeStreamUseCase } from '../use-cases/resume-stream.use-case';
import { SendMessageUseCase } from '../use-cases/send-message.use-case';

const KEEPALIVE_MS = 15_000;
const SESSION_HEADER = 'X-Assistant-Session-Id';

/** The client address: the gateway appends it last to X-Forwarded-For. */
function clientAddress(req: IncomingMessage): string {
  const fwd = req.headers['x-forwarded-for'];
  const last = (Array.isArray(fwd) ? fwd.join(',') : (fwd ?? '')).split(',').pop()?.trim();
  return last || req.socket.remoteAddress || 'unknown';
}

/** Opens the SSE response and relays into it; the relay carries on when the client leaves. */
function stream(relay: ChatRelay, res: ServerResponse, headers: Record<string, string> = {}): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  // No flushHeaders: the head leaves with the first frame (the session frame, right after the
  // run starts), one write and one packet fewer for every chat; the keep-alive comment would carry
  // it too.
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  // The response's close, not the request's: a request closes once its body is read, long before
  // a chat answer ends, so only the response tells that the client went away.
  res.once('close', () => {
    clearInterval(keepalive);
    relay.detach();
  });
  void relay
    .run({ write: (t) => res.write(t), end: (last) => (last === undefined ? res.end() : res.end(last)) })
    .finally(() => clearInterval(keepalive));
}

/** What a chat message needs besides its request: the use case, the limits and the environment. */
export interface ChatMessageDeps {
  send: SendMessageUseCase;
  limits: ChatRateLimits;
  env: AssistantEnv;
}

/**
 * `POST /assistant/messages` once its body is a SendMessageDto: the Nest route and its fast path
 * (chat-message.fast-path.ts) both answer through here. Errors are thrown before the stream opens.
 */
export async function answerChatMessage(deps: ChatMessageDeps, dto: SendMessageDto, who: Principal | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const startedAt = Date.now();
  if (!who && !deps.env.ASSISTANT_ANONYMOUS_ALLOWED) throw new DomainException('UNAUTHENTICATED', 401, 'sign in to chat (ASSISTANT_ANONYMOUS_ALLOWED is false)');
  deps.send.validate(dto);
  if (!who) {
    try {
      await deps.limits.take(dto.sessionId, clientAddress(req));
    } catch (e) {
      const retryAfter = (e as { retryAfter?: number }).retryAfter;
      if (retryAfter) res.setHeader('Retry-After', String(retryAfter));
      throw e;
    }
  }
  const turn = await deps.send.execute({ sessionId: dto.sessionId, message: dto.message, meta: dto.meta, userId: who && !who.service ? who.sub : undefined }, startedAt);
  stream(turn.relay, res, { [SESSION_HEADER]: turn.sessionId, 'X-Run-Id': turn.runId });
}

/** Public chat routes (spec: Assistant, public; Authentication). */
@ApiTags('assistant')
@Controller('assistant')
export class AssistantChatController {
  constructor(
    private readonly send: SendMessageUseCase,
    private readonly resume: ResumeStreamUseCase,
    private readonly queries: ChatQueries,
    private readonly rate: RateReplyUseCase,
    private readonly limits: ChatRateLimits,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Post('messages')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Send a chat message; the answer streams as Server-Sent Events (session, token, then one message or error frame)' })
  @ApiBody({ type: SendMessageDto })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'The SSE stream; header X-Assistant-Session-Id names the session.', headers: { [SESSION_HEADER]: { schema: { type: 'string' } } } })
  @ApiBadRequestResponse({ description: 'Missing, empty or oversized message, malformed session id or meta, malformed JSON.' })
  @ApiUnauthorizedResponse({ description: 'No bearer token while ASSISTANT_ANONYMOUS_ALLOWED is false.' })
  @ApiForbiddenResponse({ description: '`meta.intent` is `handoff` while handoff is switched off (ASSISTANT_HANDOFF_ENABLED=false): code HANDOFF_DISABLED, nothing is stored and no run starts.' })
  @ApiTooManyRequestsResponse({ description: 'ASSISTANT_RATE_LIMIT (per session) or ASSISTANT_RATE_LIMIT_PER_ADDRESS spent; see Retry-After.' })
  async messages(@Body() dto: SendMessageDto, @CurrentPrincipal() who: Principal | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    await answerChatMessage({ send: this.send, limits: this.limits, env: this.config as ServiceConfig & AssistantEnv }, dto, who, req, res);
  }

  @Get('messages/:runId/events')
  @Public()
  @ApiOperation({ summary: 'Resume a chat answer: replays every frame after Last-Event-ID, then follows the run to its end' })
  @ApiHeader({ name: SESSION_HEADER, required: true, description: 'The chat session: the capability to read its runs.' })
  @ApiHeader({ name: 'Last-Event-ID', required: false })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'The frames after Last-Event-ID; closes at once when the run has ended and nothing follows.' })
  @ApiBadRequestResponse({ description: 'Missing or malformed session id.' })
  @ApiNotFoundResponse({ description: 'The session has no such run.' })
  async events(@Param('runId') runId: string, @Headers('x-assistant-session-id') sessionId: string | undefined, @Headers('last-event-id') lastEventId: string | undefined, @Res() res: Response): Promise<void> {
    const relay = await this.resume.execute(runId, sessionId, lastEventId);
    stream(relay, res);
  }

  @Get('chats/me/:sessionId')
  @Public()
  @ApiOperation({ summary: "The caller's own transcript (the session id is the capability)" })
  @ApiOkResponse({ type: TranscriptView })
  @ApiBadRequestResponse({ description: 'Malformed session id.' })
  @ApiNotFoundResponse({ description: 'No live chat for this session.' })
  async mine(@Param('sessionId') sessionId: string): Promise<TranscriptView> {
    const chat = await this.queries.mine(sessionId);
    return { sessionId: chat.sessionId, messages: chat.messages.map(messageView), ...(chat.handoffId ? { handoffId: chat.handoffId } : {}), expiresAt: chat.expiresAt.toISOString() };
  }

  @Post('feedback')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Rate an assistant reply up or down (the session id is the capability)' })
  @ApiOkResponse({ type: FeedbackView })
  @ApiNotFoundResponse({ description: 'The session has no assistant turn of this run.' })
  async feedback(@Body() dto: FeedbackDto): Promise<FeedbackView> {
    return this.rate.execute(dto);
  }
}
