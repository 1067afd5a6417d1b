import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiExcludeEndpoint, ApiConflictResponse, ApiConsumes, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { irToSpec, parseFlowDocumentText } from '@flowplane/flow/ir';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { AdminRoute, CurrentPrincipal, Internal, type Principal } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { FlowRuntimeEnv } from '../flow-runtime.env';
import { CreateFlowDto, SeedFlowDto, FlowView, PublishFlowDto, PublishView, RollbackFlowDto, VersionView } from './dto/flow.dto';
import type { Flow, FlowVersion, PublishRecord } from './flow.entities';
import { type Actor, FlowsService, type SeedResult } from './flows.service';

const flowView = (f: Flow): FlowView => ({ ...f, createdAt: f.createdAt.toISOString(), publishedAt: f.publishedAt?.toISOString(), published: f.published as Record<string, unknown> | undefined });
const versionView = (v: FlowVersion): VersionView => ({ versionId: v.versionId, number: v.number, hash: v.hash, createdAt: v.createdAt.toISOString(), createdBy: v.createdBy, module: v.module, warnings: v.warnings });
const publishView = (p: PublishRecord): PublishView => ({ ...p, target: p.target as Record<string, unknown> | null, publishedAt: p.publishedAt.toISOString() });
const actorOf = (p: Principal): Actor => ({ sub: p.sub, module: p.service ? p.sub.slice('svc:'.length) : undefined });

function format(value: string | undefined): 'ir' | 'spec' {
  const f = value ?? 'ir';
  if (f !== 'ir' && f !== 'spec') throw new DomainException('INVALID_FORMAT', 400, 'format must be ir or spec');
  return f;
}

/** Flows, versions, publish and rollback (admin: active user and admin:access). */
@ApiTags('flows')
@ApiBearerAuth()
@Controller('flows')
export class FlowsController {
  constructor(
    private readonly flows: FlowsService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Post()
  @AdminRoute()
  @ApiOperation({ summary: 'Create a flow' })
  @ApiCreatedResponse({ type: FlowView })
  @ApiConflictResponse({ description: 'A flow with this id exists.' })
  async create(@Body() dto: CreateFlowDto, @CurrentPrincipal() who: Principal): Promise<FlowView> {
    return flowView(await this.flows.create(dto, actorOf(who)));
  }

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: 'Every flow with its published pointer' })
  @ApiOkResponse({ type: [FlowView] })
  async list(): Promise<FlowView[]> {
    return (await this.flows.list()).map(flowView);
  }

  @Get(':id')
  @AdminRoute()
  @ApiOperation({ summary: 'One flow with its published pointer' })
  @ApiOkResponse({ type: FlowView })
  @ApiNotFoundResponse()
  async get(@Param('id') id: string): Promise<FlowView> {
    return flowView(await this.flows.get(id));
  }

  @Delete(':id')
  @HttpCode(204)
  @AdminRoute()
  @ApiOperation({ summary: 'Delete an unpublished flow with its versions' })
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'The flow is published.' })
  async delete(@Param('id') id: string): Promise<void> {
    await this.flows.delete(id);
  }

  @Post(':id/versions')
  @AdminRoute()
  @ApiOperation({ summary: 'Save an immutable version (IR or spec form, JSON or YAML); an identical document returns the existing version' })
  @ApiConsumes('application/json', 'application/yaml')
  @ApiQuery({ name: 'format', required: false, enum: ['ir', 'spec'] })
  @ApiBody({ description: 'The flow document (IR workflow, or `flowdef: "1.0"` spec form).', schema: { type: 'object', additionalProperties: true } })
  @ApiCreatedResponse({ type: VersionView, description: 'A new version (200 when an identical one existed).' })
  async saveVersion(@Param('id') id: string, @Query('format') fmt: string | undefined, @Body() body: unknown, @CurrentPrincipal() who: Principal, @Res({ passthrough: true }) res: Response): Promise<VersionView> {
    const { FLOW_MAX_DOCUMENT_BYTES: max, FLOW_MAX_NODES: maxNodes } = this.config as ServiceConfig & FlowRuntimeEnv;
    let doc: unknown = body;
    if (typeof body === 'string') {
      try {
        doc = parseFlowDocumentText(body, 'application/yaml', { maxBytes: max });
      } catch (e) {
        const code = (e as { code?: string }).code;
        throw new DomainException(code ?? 'INVALID_DOCUMENT', code === 'TOO_LARGE' ? 413 : 400, (e as Error).message);
      }
    } else if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new DomainException('INVALID_DOCUMENT', 400, 'the body must be a flow document: a JSON object or a YAML mapping');
    } else if (Buffer.byteLength(JSON.stringify(body)) > max) {
      throw new DomainException('TOO_LARGE', 413, `the document is larger than FLOW_MAX_DOCUMENT_BYTES (${max})`);
    }
    const { version, created } = await this.flows.saveVersion(id, doc, format(fmt), actorOf(who), { maxNodes });
    res.status(created ? 201 : 200);
    return versionView(version);
  }

  @Get(':id/versions')
  @AdminRoute()
  @ApiOperation({ summary: 'Every saved version of a flow' })
  @ApiOkResponse({ type: [VersionView] })
  async versions(@Param('id') id: string): Promise<VersionView[]> {
    return (await this.flows.listVersions(id)).map(versionView);
  }

  @Get(':id/versions/:versionId')
  @AdminRoute()
  @ApiOperation({ summary: 'One version with its document, in IR or spec form' })
  @ApiQuery({ name: 'format', required: false, enum: ['ir', 'spec'] })
  @ApiOkResponse({ description: 'The version with its document in the requested form.', schema: { type: 'object', additionalProperties: true } })
  async version(@Param('id') id: string, @Param('versionId') versionId: string, @Query('format') fmt?: string): Promise<Record<string, unknown>> {
    const v = await this.flows.getVersion(id, versionId);
    return { ...versionView(v), document: format(fmt) === 'spec' ? irToSpec(v.document) : v.document };
  }

  @Post(':id/publish')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({ summary: 'Publish a version, a weighted split, or with no body the latest saved version; refused with 400 naming broken nodes' })
  @ApiBody({ type: PublishFlowDto, required: false, description: 'Either `versionID` or `variants`; no body (or `{}`) publishes the latest saved version.' })
  @ApiOkResponse({ type: PublishView })
  @ApiConflictResponse({ description: 'No body, and the flow has no saved version yet.' })
  // The parameter's type must be the DTO alone: a union is reflected as Object and skips validation.
  async publish(@Param('id') id: string, @Body() body: PublishFlowDto, @CurrentPrincipal() who: Principal): Promise<PublishView> {
    const dto: PublishFlowDto = body ?? {};
    if (dto.versionID && dto.variants) throw new DomainException('INVALID_PUBLISH', 400, 'give either versionID or variants, not both');
    if (!dto.variants) return publishView(await this.flows.publish(id, { versionId: dto.versionID ?? (await this.latestVersionId(id)) }, actorOf(who)));
    const variants = dto.variants.map((v) => ({ label: v.label, versionId: v.versionID, weight: v.weight }));
    if (!variants.some((v) => v.weight > 0)) throw new DomainException('INVALID_PUBLISH', 400, 'at least one variant needs a weight above zero');
    if (new Set(variants.map((v) => v.label)).size !== variants.length) throw new DomainException('INVALID_PUBLISH', 400, 'variant labels must be unique');
    return publishView(await this.flows.publish(id, { variants }, actorOf(who)));
  }

  /** The highest-numbered saved version of a flow (404 for an unknown flow, 409 when it has none). */
  private async latestVersionId(flowId: string): Promise<string> {
    const [latest] = await this.flows.listVersions(flowId);
    if (!latest) throw new DomainException('NO_VERSION', 409, `flow ${flowId} has no saved version; save one with POST /flows/${flowId}/versions first`);
    return latest.versionId;
  }

  @Post(':id/rollback')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({ summary: 'Publish an earlier version again (default: the previous publish); history is kept' })
  @ApiOkResponse({ type: PublishView })
  async rollback(@Param('id') id: string, @Body() dto: RollbackFlowDto, @CurrentPrincipal() who: Principal): Promise<PublishView> {
    return publishView(await this.flows.rollback(id, dto.versionID, actorOf(who)));
  }

  @Post(':id/unpublish')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({ summary: 'Take the flow off the air: no published version (event sources unsubscribe); rollback restores it' })
  @ApiOkResponse({ type: PublishView })
  async unpublish(@Param('id') id: string, @CurrentPrincipal() who: Principal): Promise<PublishView> {
    return publishView(await this.flows.unpublish(id, actorOf(who)));
  }

  @Get(':id/publishes')
  @AdminRoute()
  @ApiOperation({ summary: 'The publish history of a flow, newest first' })
  @ApiOkResponse({ type: [PublishView] })
  async publishes(@Param('id') id: string): Promise<PublishView[]> {
    return (await this.flows.listPublishes(id)).map(publishView);
  }
}

/** Modules seed the flows they own and keep them on their latest template revision. */
@Controller('internal/flows')
export class InternalFlowsController {
  constructor(private readonly flows: FlowsService) {}

  @Put(':id')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.flowsSeed)
  @ApiExcludeEndpoint()
  async seed(@Param('id') id: string, @Body() dto: SeedFlowDto, @CurrentPrincipal() who: Principal): Promise<SeedResult> {
    return this.flows.seed(id, dto, actorOf(who));
  }
}
