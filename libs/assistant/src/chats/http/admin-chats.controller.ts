import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute } from '@flowplane/platform/auth';
import { ChatDetailView, chatDetailView, chatItemView, ChatPageView, StatsView } from '../dto/chat-views.dto';
import { ListChatsQueryDto, StatsQueryDto } from '../dto/send-message.dto';
import { ChatQueries } from '../use-cases/chat.queries';
import { ChatStatsUseCase } from '../use-cases/chat-stats.use-case';

/** Every conversation, for operators (active user with admin:access). */
@ApiTags('assistant-admin')
@ApiBearerAuth()
@Controller()
export class AdminChatsController {
  constructor(
    private readonly queries: ChatQueries,
    private readonly stats: ChatStatsUseCase,
  ) {}

  @Get('assistant/chats')
  @AdminRoute()
  @ApiOperation({ summary: 'Chats, newest activity first, filtered by user, flow and variant; paged with an opaque cursor' })
  @ApiOkResponse({ type: ChatPageView })
  @ApiBadRequestResponse({ description: 'An unknown query parameter, a bad limit or cursor.' })
  async list(@Query() q: ListChatsQueryDto): Promise<ChatPageView> {
    const page = await this.queries.list({ userId: q.userId, flowId: q.flowId, variantLabel: q.variantLabel }, q.limit ?? 50, q.cursor);
    return { items: page.items.map(chatItemView), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  @Get('assistant/chats/:id')
  @AdminRoute()
  @ApiOperation({ summary: 'One chat with its messages and run ids' })
  @ApiOkResponse({ type: ChatDetailView })
  @ApiNotFoundResponse()
  async get(@Param('id') id: string): Promise<ChatDetailView> {
    return chatDetailView(await this.queries.get(id));
  }

  @Get('admin/assistant/stats')
  @AdminRoute()
  @ApiOperation({ summary: 'Per variant: chats, turns, handoffs, ratings, time to first token (p50, p95), tokens and cost' })
  @ApiOkResponse({ type: StatsView })
  @ApiBadRequestResponse({ description: 'A timestamp that is not ISO 8601, or from not before to.' })
  async statsView(@Query() q: StatsQueryDto): Promise<StatsView> {
    const s = await this.stats.execute(q.from, q.to);
    return { from: s.from.toISOString(), to: s.to.toISOString(), variants: s.variants };
  }
}
