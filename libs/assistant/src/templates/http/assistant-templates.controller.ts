import { Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ActiveUser, AdminRoute, Superuser } from '@flowplane/platform/auth';
import { ASSISTANT_TEMPLATES, PUBLIC_RESET_TEMPLATES } from '../domain/assistant-templates';
import { ResetAssistantUseCase } from '../use-cases/reset-assistant.use-case';

export class TemplateItemView {
  @ApiProperty({ example: 'default' }) name!: string;
  @ApiProperty({ example: 'assistant/default' }) id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ example: 'T2' }) tier!: string;
  @ApiProperty() recommended!: boolean;
  @ApiProperty({ type: [String] }) requires!: string[];
  @ApiProperty({ description: 'False for catalog entries not shipped yet (reset refuses them).' }) available!: boolean;
}

export class TemplateListView {
  @ApiProperty({ type: [TemplateItemView] }) items!: TemplateItemView[];
}

export class ResetView {
  @ApiProperty() flowId!: string;
  @ApiProperty() versionId!: string;
  @ApiProperty() template!: string;
  @ApiProperty({ enum: [true] }) published!: boolean;
  @ApiPropertyOptional({ type: [String], description: 'What the published flow lacks, for example a missing or empty knowledge index of a retrieval template.' }) warnings?: string[];
}

function bearer(req: Request): string {
  return (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}

/** The assistant's template catalog and the reset routes. */
@ApiTags('assistant-admin')
@ApiBearerAuth()
@Controller()
export class AssistantTemplatesController {
  constructor(private readonly reset: ResetAssistantUseCase) {}

  @Get('admin/assistant/templates')
  @AdminRoute()
  @ApiOperation({ summary: 'The eleven assistant flow templates' })
  @ApiOkResponse({ type: TemplateListView })
  templates(): TemplateListView {
    return { items: ASSISTANT_TEMPLATES.map(({ document, ...t }) => ({ ...t, available: document !== undefined })) };
  }

  @Post('assistant/reset')
  @HttpCode(200)
  // The reset writes flows with the caller's token, which flow-runtime refuses for an inactive user.
  @ActiveUser()
  @Superuser()
  @ApiOperation({ summary: 'Save a new version of the assistant flow from the default or production template and publish it; history is kept' })
  @ApiQuery({ name: 'template', required: false, enum: [...PUBLIC_RESET_TEMPLATES] })
  @ApiOkResponse({ type: ResetView })
  @ApiBadRequestResponse({ description: 'An unknown or not yet available template.' })
  resetPublic(@Query('template') template: string | undefined, @Req() req: Request): Promise<ResetView> {
    return this.reset.execute(template, PUBLIC_RESET_TEMPLATES, bearer(req));
  }

  @Post('admin/assistant/reset')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({ summary: 'Save a new version of the assistant flow from any available template and publish it; history is kept' })
  @ApiQuery({ name: 'template', required: false, enum: ASSISTANT_TEMPLATES.map((t) => t.name) })
  @ApiOkResponse({ type: ResetView })
  @ApiBadRequestResponse({ description: 'An unknown or not yet available template.' })
  resetAdmin(@Query('template') template: string | undefined, @Req() req: Request): Promise<ResetView> {
    return this.reset.execute(template, undefined, bearer(req));
  }
}
