import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import type { FlowDocument } from '@flowplane/flow/ir';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { CurrentPrincipal, Internal, type Principal } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { stableVersionOf } from '../flows/flow.entities';
import { FlowsService } from '../flows/flows.service';
import { TemplateRegistry } from '../templates/template.registry';
import { type ApiRoute, ApiRoutes } from './api-routes';

export class FlowRefDto {
  @IsString()
  @MaxLength(200)
  flowId!: string;

  @IsOptional()
  @IsString()
  @MaxLength(250)
  versionId?: string;
}

export class FlowDocumentsDto {
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => FlowRefDto)
  refs!: FlowRefDto[];
}

export class FlowFromTemplateDto {
  @IsString()
  @MaxLength(200)
  templateId!: string;

  /** Publish the saved version (default true). */
  @IsOptional()
  @IsBoolean()
  publish?: boolean;
}

/** What the deployments service learns about one variant's flow. */
export interface FlowDocumentView {
  flowId: string;
  /** False when the flow does not exist (or the pinned version does not). */
  found: boolean;
  /** The pinned version, or the published one (the heaviest variant of a split). */
  versionId?: string;
  published: boolean;
  document?: FlowDocument;
  /** The flow's name. */
  name?: string;
  /** Content hash of the version. */
  hash?: string;
}

/**
 * Internal reads and writes of flows for the deployments service (issue 6): the documents behind
 * variants (route defaults, `contributes`) in one batch, and a flow created from a template for
 * `POST /deployments/{id}/variants/from-template`.
 */
@Controller('internal/flows')
@ApiExcludeController()
export class FlowDocumentsController {
  constructor(
    private readonly flows: FlowsService,
    private readonly templates: TemplateRegistry,
    private readonly apiRoutes: ApiRoutes,
  ) {}

  /** The routes this service's controllers answer under /api/v1, which no route deployment may claim. */
  @Get('api-routes')
  @Internal(INTERNAL_PERMS.flowsRead)
  routes(): { routes: ApiRoute[] } {
    return { routes: this.apiRoutes.list() };
  }

  @Post('documents')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.flowsRead)
  async documents(@Body() dto: FlowDocumentsDto): Promise<{ flows: FlowDocumentView[] }> {
    return { flows: await Promise.all(dto.refs.map((r) => this.document(r.flowId, r.versionId))) };
  }

  private async document(flowId: string, pinned?: string): Promise<FlowDocumentView> {
    const flow = await this.flows.get(flowId).catch(() => undefined);
    if (!flow) return { flowId, found: false, published: false };
    const versionId = pinned ?? (flow.published ? stableVersionOf(flow.published) : undefined);
    if (!versionId) return { flowId, found: true, published: false };
    const version = await this.flows.getVersion(flowId, versionId).catch(() => undefined);
    if (!version) return { flowId, found: false, published: !!flow.published, versionId };
    return { flowId, found: true, published: !!flow.published, versionId, document: version.document, name: flow.name, hash: version.hash };
  }

  @Post('from-template')
  @HttpCode(201)
  @Internal(INTERNAL_PERMS.flowsCreate)
  async fromTemplate(@Body() dto: FlowFromTemplateDto, @CurrentPrincipal() who: Principal): Promise<{ flowId: string; versionId: string; templateId: string }> {
    const template = this.templates.get(dto.templateId);
    if (!template) throw new DomainException('TEMPLATE_NOT_FOUND', 404, `no template ${dto.templateId}`);
    const actor = { sub: who.sub, module: who.service ? who.sub.slice('svc:'.length) : undefined };
    const flow = await this.flows.create({ name: template.name, description: template.description }, actor);
    const { version } = await this.flows.saveVersion(flow.id, template.document, 'ir', actor);
    if (dto.publish !== false) await this.flows.publish(flow.id, { versionId: version.versionId }, actor);
    return { flowId: flow.id, versionId: version.versionId, templateId: template.id };
  }
}
