import { Body, Controller, Get, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { AdminRoute, CurrentPrincipal, Internal, type Principal, Public } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import { HandoffFiledView, HandoffListView, HandoffPendingView, handoffView, type HandoffView, HandoffView as HandoffViewDto, InternalHandoffView, ListHandoffsQuery, UpdateHandoffDto } from '../dto/handoff-views.dto';
import { InternalHandoffDto, RequestHandoffDto } from '../dto/request-handoff.dto';
import { HandoffQueries, encodeCursor } from '../use-cases/handoff.queries';
import { RequestHandoffUseCase } from '../use-cases/request-handoff.use-case';
import { UpdateHandoffUseCase } from '../use-cases/update-handoff.use-case';

/** Settings read here (declared by the assistant's env fragment). */
interface AnonymousSetting {
  ASSISTANT_ANONYMOUS_ALLOWED?: boolean;
}

const FILED_MESSAGE = 'Thanks, your request was passed on: a person will get back to you by e-mail.';

/** POST /assistant/handoff (public) and the admin handoff routes. */
@ApiTags('assistant')
@Controller('assistant')
export class HandoffsController {
  constructor(
    private readonly request: RequestHandoffUseCase,
    private readonly update: UpdateHandoffUseCase,
    private readonly queries: HandoffQueries,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Post('handoff')
  @Public()
  @ApiOperation({ summary: 'Ask for a person: stores the request with the chat transcript and announces assistant.handoff_requested' })
  @ApiCreatedResponse({ type: HandoffFiledView })
  @ApiBadRequestResponse({ description: 'Malformed session id or e-mail, priority other than low, normal, high.' })
  @ApiUnauthorizedResponse({ description: 'No bearer token while ASSISTANT_ANONYMOUS_ALLOWED is false.' })
  @ApiForbiddenResponse({ description: 'Handoff is switched off (ASSISTANT_HANDOFF_ENABLED=false).' })
  @ApiConflictResponse({ type: HandoffPendingView, description: 'The session already has a pending request (`handoffId` names it); nothing was written.' })
  async create(@Body() dto: RequestHandoffDto, @CurrentPrincipal() who: Principal | undefined): Promise<HandoffFiledView> {
    const user = who && !who.service ? who : undefined;
    if (!user && (this.config as ServiceConfig & AnonymousSetting).ASSISTANT_ANONYMOUS_ALLOWED === false) {
      throw new DomainException('UNAUTHENTICATED', 401, 'sign in to ask for a person (ASSISTANT_ANONYMOUS_ALLOWED is false)');
    }
    const h = await this.request.execute({ sessionId: dto.sessionId, email: dto.email, phone: dto.phone, reason: dto.reason, priority: dto.priority, userId: user?.sub });
    return { ok: true, message: FILED_MESSAGE, handoffId: h.id };
  }

  @Get('handoffs')
  @AdminRoute()
  @ApiOperation({ summary: 'Handoff requests, newest first (status defaults to pending; `all` for every status)' })
  @ApiOkResponse({ type: HandoffListView })
  @ApiBadRequestResponse({ description: 'Unknown status, bad limit or cursor.' })
  async list(@Query() q: ListHandoffsQuery): Promise<HandoffListView> {
    const page = await this.queries.list(q.status ?? 'pending', q.limit ?? 50, q.cursor);
    return { items: page.items.map(handoffView), ...(page.next ? { nextCursor: encodeCursor(page.next) } : {}) };
  }

  @Get('handoffs/:id')
  @AdminRoute()
  @ApiOperation({ summary: 'One handoff request' })
  @ApiOkResponse({ type: HandoffViewDto })
  @ApiNotFoundResponse({ description: 'No such handoff.' })
  async get(@Param('id') id: string): Promise<HandoffView> {
    return handoffView(await this.queries.get(id));
  }

  @Patch('handoffs/:id')
  @AdminRoute()
  @ApiOperation({ summary: 'Move a handoff (contacted stamps contactedAt and contactedBy); resolved and dismissed are final' })
  @ApiOkResponse({ type: HandoffViewDto })
  @ApiBadRequestResponse({ description: 'Unknown status.' })
  @ApiNotFoundResponse({ description: 'No such handoff.' })
  @ApiConflictResponse({ description: 'The handoff is resolved or dismissed.' })
  async patch(@Param('id') id: string, @Body() dto: UpdateHandoffDto, @CurrentPrincipal() who: Principal): Promise<HandoffView> {
    return handoffView(await this.update.execute(id, { status: dto.status, notes: dto.notes }, who.sub));
  }
}

/** The route the `svc/assistant-handoff-request` node calls (service token with internal:assistant:handoff). */
@ApiTags('assistant')
@Controller('internal/assistant')
export class InternalHandoffsController {
  constructor(private readonly request: RequestHandoffUseCase) {}

  @Post('handoffs')
  @Internal(INTERNAL_PERMS.assistantHandoff)
  @ApiOperation({ summary: 'File a handoff for a flow node (same use case as POST /assistant/handoff; urgent is recorded as high)' })
  @ApiCreatedResponse({ type: InternalHandoffView })
  @ApiConflictResponse({ type: HandoffPendingView, description: 'The session already has a pending request.' })
  @ApiForbiddenResponse({ description: 'Handoff is switched off (ASSISTANT_HANDOFF_ENABLED=false).' })
  async create(@Body() dto: InternalHandoffDto): Promise<InternalHandoffView> {
    const h = await this.request.execute(dto);
    return { handoffId: h.id, status: h.status };
  }
}
