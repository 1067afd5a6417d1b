import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { DEPLOYMENT_KINDS, type DeploymentKind, INTERNAL_PERMS, IsStringRecord, normalizeRoute, routeProblem } from '@flowplane/contracts';
import { CurrentPrincipal, Internal, type Principal } from '@flowplane/platform/auth';
import type { Deployment } from '../domain/deployment';
import { invalidDeployment } from '../domain/deployment.errors';
import { type Descriptions, DeploymentsService } from '../deployments.service';
import { SelectionView, SelectVariantDto } from '../dto/deployment.dto';
import { deploymentView } from './deployments.controller';

class StableRefDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  flowId!: string;

  @IsOptional()
  @IsString()
  versionId?: string;
}

/** Body of PUT /internal/deployments/{id}: an auto-managed deployment (rule 11). */
export class EnsureDeploymentDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @IsIn(DEPLOYMENT_KINDS)
  kind!: DeploymentKind;

  @IsStringRecord()
  labels!: Record<string, string>;

  @ValidateNested()
  @Type(() => StableRefDto)
  stable!: StableRefDto;

  /** Sticky bucketing field of the run meta, set when the deployment is created. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  stickyBy?: string;
}

class FlowRouteDto {
  @IsString()
  method!: string;

  @IsString()
  path!: string;
}

class FlowEventDto {
  @IsString()
  @IsNotEmpty()
  name!: string;

  @IsOptional()
  @IsString()
  filter?: string;
}

/** Body of PUT /internal/deployments/flows/{flowId}: what the published version of a flow asks for. */
export class FlowDeploymentDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => FlowRouteDto)
  route?: FlowRouteDto;

  @IsOptional()
  @ValidateNested()
  @Type(() => FlowEventDto)
  event?: FlowEventDto;

  @IsOptional()
  @IsString()
  templateId?: string;

  @IsOptional()
  @IsString()
  source?: string;

  @IsOptional()
  @IsBoolean()
  activation?: boolean;
}

/** Body of POST /internal/deployments/route-check. */
export class RouteCheckDto {
  @IsString()
  method!: string;

  @IsString()
  path!: string;

  /** The auto-managed deployment of the route, which may hold it already. */
  @IsOptional()
  @IsString()
  exemptId?: string;
}

/** A deployment as flow-runtime binds it. */
export type DeploymentRecord = Omit<Deployment, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

/** What flow-runtime and the assistant call (service token). */
@ApiExcludeController()
@Controller('internal/deployments')
export class InternalDeploymentsController {
  constructor(private readonly deployments: DeploymentsService) {}

  /** Every deployment, unenriched: flow-runtime's full sync of its bindings. */
  @Get()
  @Internal(INTERNAL_PERMS.deploymentsRead)
  async all(): Promise<{ deployments: DeploymentRecord[] }> {
    return { deployments: (await this.deployments.all()).map((d) => ({ ...d, createdAt: d.createdAt.toISOString(), updatedAt: d.updatedAt.toISOString() })) };
  }

  /** Contributions of enabled deployments (the gateway's openapi.json and asyncapi.yaml). */
  @Get('descriptions')
  @Internal(INTERNAL_PERMS.deploymentsDescribe)
  descriptions(): Promise<Descriptions> {
    return this.deployments.descriptions();
  }

  @Post(':id/select')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.deploymentsSelect)
  async select(@Param('id') id: string, @Body() dto: SelectVariantDto): Promise<SelectionView> {
    const s = await this.deployments.select(id, dto.meta);
    return { deploymentId: s.deployment.id, variant: s.variant, sticky: s.sticky };
  }

  /** The deployment of a published flow (rule 5): kept, created, patched in place or replaced. */
  @Put('flows/:flowId')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.deploymentsWrite)
  async ensureForFlow(@Param('flowId') flowId: string, @Body() dto: FlowDeploymentDto, @CurrentPrincipal() who: Principal) {
    const r = await this.deployments.ensureForFlow({ flowId, ...dto }, { sub: who.sub });
    return { created: r.created, reason: r.reason, deployment: r.deployment ? deploymentView({ deployment: r.deployment }) : undefined };
  }

  /** A deployment a module owns (not auto-managed): created, or its stable variant patched in place. */
  @Put(':id')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.deploymentsWrite)
  async ensure(@Param('id') id: string, @Body() dto: EnsureDeploymentDto, @CurrentPrincipal() who: Principal) {
    const { deployment, created } = await this.deployments.ensure({ id, ...dto }, { sub: who.sub });
    return { created, deployment: deploymentView({ deployment }) };
  }

  @Post('route-check')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.deploymentsRead)
  async routeCheck(@Body() dto: RouteCheckDto): Promise<{ ok: true }> {
    const route = normalizeRoute(dto);
    const problem = routeProblem(route);
    if (problem) throw invalidDeployment([{ field: 'path', problem }]);
    await this.deployments.checkRoute(route, dto.exemptId);
    return { ok: true };
  }
}
