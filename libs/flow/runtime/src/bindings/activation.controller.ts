import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { AdminRoute, CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { ActivationService } from './activation.service';

export class ActivateTemplateDto {
  @ApiProperty({ example: 'shop/order-intake' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  templateId!: string;
}

export class ActivationView {
  @ApiProperty() flow_id!: string;
  @ApiProperty() template_id!: string;
  @ApiPropertyOptional({ example: 'POST' }) method?: string;
  @ApiPropertyOptional({ example: '/orders' }) path?: string;
  @ApiProperty({ type: [String], description: 'Templates of meta.publish_with published by this call (empty when all were running).' }) published_with!: string[];
}

@ApiTags('flows')
@ApiBearerAuth()
@Controller('flows/templates')
export class ActivationController {
  constructor(private readonly activation: ActivationService) {}

  @Post('activate')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({ summary: 'Activate a template: route pre-flight, flow created or reused and published, deployment ensured, publish_with published' })
  @ApiOkResponse({ type: ActivationView })
  @ApiNotFoundResponse({ description: 'Unknown template' })
  @ApiConflictResponse({ description: 'The route belongs to another deployment: {detail, conflicting_deployment_id, conflicting_deployment_name, method, path}' })
  activate(@Body() dto: ActivateTemplateDto, @CurrentPrincipal() who: Principal): Promise<ActivationView> {
    return this.activation.activate(dto.templateId, { sub: who.sub, module: who.service ? who.sub.slice('svc:'.length) : undefined });
  }
}
