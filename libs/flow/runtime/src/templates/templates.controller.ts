import { Body, Controller, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { irToSpec, validateFlowDocument } from '@flowplane/flow/ir';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { AdminRoute, Internal } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { RegisterTemplatesDto, TemplateSummaryView } from './dto/template.dto';
import type { FlowTemplate } from './flow-template';
import { TemplateRegistry } from './template.registry';

/** The create-from-template picker (spec "Rules: templates"). */
@ApiTags('flow templates')
@ApiBearerAuth()
@Controller('flows/templates')
export class TemplatesController {
  constructor(private readonly registry: TemplateRegistry) {}

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: 'Templates (id, name, description, source, tags; no documents), optionally searched with q' })
  @ApiQuery({ name: 'q', required: false, description: 'Words that must all appear in id, name, description, source or tags.' })
  @ApiOkResponse({ type: [TemplateSummaryView] })
  list(@Query('q') q?: string): TemplateSummaryView[] {
    return this.registry.search(q);
  }

  // A wildcard, because the id holds a slash: `flow/echo` arrives as two segments, and
  // `flow%2Fecho` (what a client that encodes the id sends) as one that Express decodes.
  @Get('*id')
  @AdminRoute()
  @ApiOperation({ summary: 'One template document, in spec form (default) or IR' })
  @ApiParam({ name: 'id', type: String, example: 'flow/echo', description: 'Template id `<module>/<slug>`; the slash may be sent as it is or percent-encoded (`flow%2Fecho`).' })
  @ApiQuery({ name: 'format', required: false, enum: ['spec', 'ir'] })
  @ApiOkResponse({ description: 'The document (`flowdef: "1.0"` spec form, or the IR workflow).', schema: { type: 'object', additionalProperties: true } })
  @ApiNotFoundResponse({ description: 'Unknown template id.' })
  get(@Param('id') segments: string[] | string, @Query('format') format = 'spec'): unknown {
    if (format !== 'spec' && format !== 'ir') throw new DomainException('INVALID_FORMAT', 400, 'format must be spec or ir');
    const id = Array.isArray(segments) ? segments.join('/') : segments;
    const t = this.registry.get(id);
    if (!t) throw new DomainException('TEMPLATE_NOT_FOUND', 404, `no template ${id}`);
    const doc = { ...t.document, name: t.document.name ?? t.name, description: t.document.description ?? t.description };
    return format === 'ir' ? doc : irToSpec(doc);
  }
}

/** Remote modules register their template lists here at startup (and again when they change). */
@Controller('internal/templates')
export class InternalTemplatesController {
  constructor(private readonly registry: TemplateRegistry) {}

  @Put('providers/:source')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.templatesRegister)
  @ApiExcludeEndpoint()
  async register(@Param('source') source: string, @Body() dto: RegisterTemplatesDto): Promise<{ source: string; registered: number }> {
    const problems = dto.templates.flatMap((t, i) =>
      validateFlowDocument(t.document).errors.map((e) => ({ field: `templates.${i}.document${e.path.replace(/\//g, '.')}`, problems: [e.message] })),
    );
    if (problems.length) throw new DomainException('TEMPLATE_INVALID', 400, `invalid template documents: ${problems.length} problems`, { details: problems });
    const templates: FlowTemplate[] = dto.templates.map((t) => ({ id: t.id, name: t.name, description: t.description, source: t.source ?? source, tags: t.tags ?? [], document: t.document as unknown as FlowTemplate['document'] }));
    await this.registry.register(source, templates, dto.priority ?? 0);
    return { source, registered: templates.length };
  }
}
