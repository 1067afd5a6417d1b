import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsString } from 'class-validator';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { ApiBadRequestResponse, ApiBearerAuth, ApiExcludeController, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, CurrentPrincipal, Internal, type Principal } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { PriceTableView, PutPricesDto, UsageByQueryDto, UsageByView, UsageListQueryDto, UsagePageView, type UsageRowView } from './dto/llm-usage.dto';
import { PriceTableService, type PriceTableState } from './price-table.service';
import { type UsageEntry, type UsageQuery, UsageRepository } from './usage.repository';

function range(from: string | undefined, to: string | undefined, retentionMs: number): { from: Date; to: Date } {
  const end = to ? new Date(to) : new Date();
  const start = from ? new Date(from) : new Date(end.getTime() - retentionMs);
  if (start.getTime() >= end.getTime()) throw new DomainException('INVALID_RANGE', 400, '`from` must be before `to`');
  return { from: start, to: end };
}

function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.getTime(), id])).toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [t, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof t === 'number' && Number.isFinite(t) && typeof id === 'string') return { at: new Date(t), id };
  } catch {
    /* falls through */
  }
  throw new DomainException('INVALID_CURSOR', 400, 'cursor is not a nextCursor of this listing');
}

function rowView(e: UsageEntry): UsageRowView {
  const { recordedAt, ...rest } = e;
  return { ...rest, recordedAt: recordedAt.toISOString() };
}

function tableView(s: PriceTableState): PriceTableView {
  return { currency: s.currency, prices: s.prices, isDefault: s.isDefault, ...(s.updatedAt ? { updatedAt: s.updatedAt.toISOString() } : {}), ...(s.updatedBy ? { updatedBy: s.updatedBy } : {}) };
}

/** The LLM usage ledger and its price table (admin: active user with admin:access). */
@ApiTags('llm')
@ApiBearerAuth()
@Controller('admin/llm')
export class LlmUsageController {
  constructor(
    private readonly usage: UsageRepository,
    private readonly prices: PriceTableService,
  ) {}

  @Get('usage/by')
  @AdminRoute()
  @ApiOperation({ summary: 'Usage grouped by one dimension (profileId, provider, model, flowId, nodeId, userId, assistant): calls, errors, tokens, cost and the count of unpriced calls per group' })
  @ApiOkResponse({ type: UsageByView })
  @ApiBadRequestResponse({ description: 'Unknown field, a timestamp that is not ISO 8601, or from not before to.' })
  async by(@Query() q: UsageByQueryDto): Promise<UsageByView> {
    const { from, to } = range(q.from, q.to, this.usage.retentionMs);
    const groups = await this.usage.groupBy(q.field, { from, to });
    return { field: q.field, from: from.toISOString(), to: to.toISOString(), groups };
  }

  @Get('usage')
  @AdminRoute()
  @ApiOperation({ summary: 'Usage rows, newest first, filtered by profile, flow, run, provider, model and time; paged with an opaque cursor' })
  @ApiOkResponse({ type: UsagePageView })
  @ApiBadRequestResponse({ description: 'Invalid filter, limit or cursor.' })
  async list(@Query() q: UsageListQueryDto): Promise<UsagePageView> {
    const { from, to } = range(q.from, q.to, this.usage.retentionMs);
    const query: UsageQuery = { from, to, profileId: q.profileId, flowId: q.flowId, runId: q.runId, providerId: q.providerId, model: q.model };
    const page = await this.usage.list(query, q.limit ?? 50, q.cursor ? decodeCursor(q.cursor) : undefined);
    return { items: page.items.map(rowView), ...(page.next ? { nextCursor: encodeCursor(page.next.at, page.next.id) } : {}) };
  }

  @Get('prices')
  @AdminRoute()
  @ApiOperation({ summary: 'The price table used to cost calls when they are recorded' })
  @ApiOkResponse({ type: PriceTableView })
  async getPrices(): Promise<PriceTableView> {
    return tableView(await this.prices.get());
  }

  @Put('prices')
  @AdminRoute()
  @ApiOperation({ summary: 'Replace the price table; applies to calls recorded from now on (recorded costs are never rewritten)' })
  @ApiBody({ type: PutPricesDto })
  @ApiOkResponse({ type: PriceTableView })
  @ApiBadRequestResponse({ description: 'Invalid currency or price entry (details per field).' })
  async putPrices(@Body() dto: PutPricesDto, @CurrentPrincipal() who: Principal): Promise<PriceTableView> {
    return tableView(await this.prices.put({ currency: dto.currency, prices: dto.prices }, who.sub));
  }
}

/** Body of POST /internal/llm/usage/runs. */
export class UsageOfRunsDto {
  @IsArray()
  @ArrayMaxSize(10_000)
  @IsString({ each: true })
  runIds!: string[];
}

/** Usage totals per run for services (the assistant's per-variant stats). */
@Controller('internal/llm/usage')
@ApiExcludeController()
export class InternalLlmUsageController {
  constructor(private readonly usage: UsageRepository) {}

  @Post('runs')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.usageRead)
  async runs(@Body() dto: UsageOfRunsDto): Promise<{ runs: Awaited<ReturnType<UsageRepository['totalsByRun']>> }> {
    return { runs: await this.usage.totalsByRun(dto.runIds) };
  }
}
