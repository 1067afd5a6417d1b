import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute, CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { deriveTags } from '../domain/deployment';
import { DeploymentsService, type DeploymentRead } from '../deployments.service';
import { CreateDeploymentDto, DeploymentView, PatchDeploymentDto, SelectionView, SelectVariantDto, VariantFromTemplateDto } from '../dto/deployment.dto';

/** The read view: stored fields, derived tags, contributions. */
export function deploymentView(r: DeploymentRead): DeploymentView {
  const d = r.deployment;
  return {
    id: d.id,
    name: d.name,
    kind: d.kind,
    disabled: d.disabled,
    labels: d.labels,
    tags: deriveTags(d.labels),
    stickyBy: d.stickyBy,
    variants: d.variants,
    route: d.route,
    auth: d.auth,
    managedFor: d.managedFor,
    contributes: r.contributes,
    contributesError: r.contributesError,
    revision: d.revision,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

/** Deployments (admin; DELETE also needs `admin`). */
@ApiTags('deployments')
@ApiBearerAuth()
@Controller('deployments')
export class DeploymentsController {
  constructor(private readonly deployments: DeploymentsService) {}

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: 'List deployments with kind, tags, disabled and contributes' })
  @ApiOkResponse({ type: [DeploymentView] })
  async list(): Promise<DeploymentView[]> {
    return (await this.deployments.list()).map(deploymentView);
  }

  @Get(':id')
  @AdminRoute()
  @ApiOperation({ summary: 'One deployment with the same enrichment' })
  @ApiOkResponse({ type: DeploymentView })
  @ApiNotFoundResponse()
  async get(@Param('id') id: string): Promise<DeploymentView> {
    return deploymentView(await this.deployments.get(id));
  }

  @Post()
  @AdminRoute()
  @ApiOperation({
    summary: 'Create; 409 when it claims a route or a flow another deployment has',
    description:
      'A flow belongs to one deployment: naming a flow another deployment names is a 409 (`FLOW_CONFLICT`, with `conflicting_deployment_id`), except that the flow\'s auto-managed deployment (`managedFor`) is absorbed: deleted, its route released. A route on a path a service answers itself is a 409 (`ROUTE_OWNED`, with `owner`). Labels are checked first (400).',
  })
  @ApiCreatedResponse({ type: DeploymentView })
  @ApiConflictResponse({ description: 'Duplicate id; the route conflict body {detail, conflicting_deployment_id, conflicting_deployment_name, method, path}; the flow conflict body {detail, conflicting_deployment_id, conflicting_deployment_name, flowId}; or an owned route {detail, owner, method, path}' })
  async create(@Body() dto: CreateDeploymentDto, @CurrentPrincipal() who: Principal): Promise<DeploymentView> {
    const d = await this.deployments.create(dto, { sub: who.sub });
    return deploymentView(await this.deployments.get(d.id));
  }

  @Patch(':id')
  @AdminRoute()
  @ApiOperation({
    summary: 'Patch any field; variants and labels re-check the route and the flows (absorbing auto-managed deployments); disabled re-syncs bindings at once',
    description: 'A published flow the new variants no longer name gets its auto-managed deployment back within a second. On an auto-managed deployment, labels, the name and the stable variant weight and pin set here survive the next publish of its flow.',
  })
  @ApiOkResponse({ type: DeploymentView })
  @ApiConflictResponse({ description: 'The route or a flow belongs to another deployment, or the route to a service (same bodies as create)' })
  async patch(@Param('id') id: string, @Body() dto: PatchDeploymentDto, @CurrentPrincipal() who: Principal): Promise<DeploymentView> {
    await this.deployments.patch(id, dto, { sub: who.sub });
    return deploymentView(await this.deployments.get(id));
  }

  @Delete(':id')
  @HttpCode(204)
  @AdminRoute('admin')
  @ApiOperation({
    summary: 'Delete (requires the admin permission); the route claim is released',
    description: 'A published flow always has a deployment: each published flow the deleted deployment named gets its auto-managed deployment back within a second (a flow with meta.route its route deployment). Unpublish a flow, or PATCH disabled, to take it out of service.',
  })
  @ApiNoContentResponse()
  async delete(@Param('id') id: string): Promise<void> {
    await this.deployments.delete(id);
  }

  @Post(':id/variants/from-template')
  @HttpCode(201)
  @AdminRoute()
  @ApiOperation({ summary: 'Create a flow from a template, publish version one and append it as a variant' })
  @ApiCreatedResponse({ type: DeploymentView })
  async fromTemplate(@Param('id') id: string, @Body() dto: VariantFromTemplateDto, @CurrentPrincipal() who: Principal): Promise<DeploymentView> {
    await this.deployments.variantFromTemplate(id, dto, { sub: who.sub });
    return deploymentView(await this.deployments.get(id));
  }

  @Post(':id/select')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({ summary: 'The variant a caller with this meta would get (sticky by stickyBy)' })
  @ApiOkResponse({ type: SelectionView })
  @ApiConflictResponse({ description: 'Every variant has weight 0: code NO_ELIGIBLE_VARIANT, with `deploymentId`; give a variant a weight above 0.' })
  async select(@Param('id') id: string, @Body() dto: SelectVariantDto): Promise<SelectionView> {
    const s = await this.deployments.select(id, dto.meta);
    return { deploymentId: s.deployment.id, variant: s.variant, sticky: s.sticky };
  }
}
