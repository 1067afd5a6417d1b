import { Body, Controller, Headers, HttpCode, Inject, Post, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiQuery, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  convertDocument,
  type Diagnostic,
  hasErrors,
  sourceFormat,
  summarize,
  targetFormat,
  TARGET_FORMATS,
  SOURCE_FORMATS,
  toSarif,
  toolSelection,
  TOOL_SELECTIONS,
  toolsOfDocument,
  UnknownFormatError,
  validateDocument,
} from '@flowplane/flow/compile';
import { AdminRoute } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { FlowRuntimeEnv } from '../flow-runtime.env';

/** Most diagnostics echoed in the X-Diagnostics header (the envelope form carries all of them). */
const HEADER_DIAGNOSTICS = 20;

/**
 * The compile pipeline over HTTP (issue 5 item 7). Bodies are the source document as YAML
 * (`application/yaml`, `text/yaml`) or JSON. Unknown format names answer 400 listing the valid
 * ones; documents over FLOW_MAX_DOCUMENT_BYTES 413; unreadable documents 400 with diagnostics
 * carrying line and column.
 */
@ApiTags('flows')
@ApiBearerAuth()
@Controller('flows')
export class CompileController {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  private get maxBytes(): number {
    return (this.config as ServiceConfig & FlowRuntimeEnv).FLOW_MAX_DOCUMENT_BYTES;
  }

  @Post('compile')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({
    summary: 'Convert a document between formats through the IR',
    description:
      'Answers the target document with its content type; diagnostics travel in `X-Diagnostics-Errors`, `X-Diagnostics-Warnings` and `X-Diagnostics` (JSON list, first 20). With `envelope=true` the answer is JSON `{format, contentType, document, diagnostics}` instead.',
  })
  @ApiConsumes('application/yaml', 'application/json')
  @ApiQuery({ name: 'from', required: false, enum: SOURCE_FORMATS })
  @ApiQuery({ name: 'to', required: true, enum: TARGET_FORMATS })
  @ApiQuery({ name: 'syntax', required: false, enum: ['json', 'yaml'], description: 'Override the target syntax.' })
  @ApiQuery({ name: 'envelope', required: false, type: Boolean })
  @ApiBody({ description: 'The source document: YAML, or any JSON value (`null`, like an empty or `null` YAML document, is FDL001).', schema: { type: 'string' } })
  @ApiOkResponse({ description: 'The converted document.' })
  @ApiBadRequestResponse({ description: 'Unknown format, or a document that cannot be read (diagnostics with line and column).' })
  @ApiUnprocessableEntityResponse({ description: 'The document was read but has errors (`DOCUMENT_HAS_ERRORS`); the body carries every diagnostic. Nothing is converted.' })
  @ApiPayloadTooLargeResponse()
  compile(@Body() body: unknown, @Headers('content-type') contentType: string | undefined, @Query('from') from: string | undefined, @Query('to') to: string | undefined, @Query('syntax') syntax: string | undefined, @Query('envelope') envelope: string | undefined, @Res() res: Response): void {
    const opts = formats(() => ({ from: sourceFormat(from), to: targetFormat(to) }));
    if (syntax !== undefined && syntax !== 'json' && syntax !== 'yaml') throw new DomainException('UNKNOWN_FORMAT', 400, `syntax must be json or yaml, not "${syntax}"`);
    const result = convertDocument(textOf(body, contentType), { ...opts, maxBytes: this.maxBytes, syntax });
    refuseUnreadable(result.diagnostics, !result.output);
    refuseErrors(result.diagnostics);
    const output = result.output!;
    if (envelope === 'true' || envelope === '1') {
      res.status(200).json({ format: opts.to, contentType: output.contentType, document: output.text, diagnostics: result.diagnostics });
      return;
    }
    const s = summarize(result.diagnostics);
    res.setHeader('X-Diagnostics-Errors', String(s.errors));
    res.setHeader('X-Diagnostics-Warnings', String(s.warnings));
    if (result.diagnostics.length) res.setHeader('X-Diagnostics', JSON.stringify(result.diagnostics.slice(0, HEADER_DIAGNOSTICS).map(headerSafe)));
    res.status(200).type(output.contentType).send(output.text);
  }

  @Post('validate')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({ summary: 'Validate a document: codes FDL001..FDL060 and pipeline codes, with JSON paths (and line/column)' })
  @ApiConsumes('application/yaml', 'application/json')
  @ApiQuery({ name: 'format', required: false, enum: SOURCE_FORMATS, description: 'Source format (default auto-detected).' })
  @ApiQuery({ name: 'report', required: false, enum: ['json', 'sarif'], description: 'sarif answers a SARIF 2.1.0 log.' })
  @ApiBody({ description: 'The document: YAML, or any JSON value (`null`, like an empty or `null` YAML document, is FDL001).', schema: { type: 'string' } })
  @ApiOkResponse({ description: '`{valid, summary: {errors, warnings}, diagnostics}`, or a SARIF 2.1.0 log.' })
  @ApiPayloadTooLargeResponse()
  validate(@Body() body: unknown, @Headers('content-type') contentType: string | undefined, @Query('format') format: string | undefined, @Query('report') report: string | undefined): Record<string, unknown> {
    const from = formats(() => sourceFormat(format));
    if (report !== undefined && report !== 'json' && report !== 'sarif') throw new DomainException('UNKNOWN_FORMAT', 400, `report must be json or sarif, not "${report}"`);
    const result = validateDocument(textOf(body, contentType), { from, maxBytes: this.maxBytes });
    if (result.diagnostics.some((d) => d.code === 'TOO_LARGE')) refuseUnreadable(result.diagnostics, true);
    if (report === 'sarif') return toSarif(result.diagnostics, { file: 'request-body' });
    return { valid: !hasErrors(result.diagnostics), summary: summarize(result.diagnostics), diagnostics: result.diagnostics };
  }

  @Post('tools')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({ summary: 'Function-calling tool definitions from actions, entities (get_<name>), commands, or all' })
  @ApiConsumes('application/yaml', 'application/json')
  @ApiQuery({ name: 'from', required: false, enum: SOURCE_FORMATS })
  @ApiQuery({ name: 'select', required: false, enum: TOOL_SELECTIONS })
  @ApiBody({ description: 'The document: YAML, or any JSON value (`null`, like an empty or `null` YAML document, is FDL001).', schema: { type: 'string' } })
  @ApiOkResponse({ description: '`{tools: [{type: "function", function: {name, description, parameters}}], diagnostics}`; diagnostics hold warnings only.' })
  @ApiBadRequestResponse({ description: 'Unknown format or selection, or a document that cannot be read (diagnostics with line and column).' })
  @ApiUnprocessableEntityResponse({ description: 'The document was read but has errors (`DOCUMENT_HAS_ERRORS`); the body carries every diagnostic. No tools are exported.' })
  @ApiPayloadTooLargeResponse()
  tools(@Body() body: unknown, @Headers('content-type') contentType: string | undefined, @Query('from') from: string | undefined, @Query('select') select: string | undefined): Record<string, unknown> {
    const opts = formats(() => ({ from: sourceFormat(from), select: toolSelection(select) }));
    const result = toolsOfDocument(textOf(body, contentType), { ...opts, maxBytes: this.maxBytes });
    refuseUnreadable(result.diagnostics, result.diagnostics.some((d) => d.code === 'PARSE' || d.code === 'TOO_LARGE' || d.code === 'FDL001'));
    // Like compile: tools of a document with errors (two actions of one name) would be broken.
    refuseErrors(result.diagnostics);
    return { tools: result.tools, diagnostics: result.diagnostics };
  }
}

/**
 * The body as text: YAML arrives as a string; JSON already parsed (any value, `null` included) is
 * serialised again (positions refer to that text), so a JSON string is a scalar document, not YAML.
 */
function textOf(body: unknown, contentType: string | undefined): string {
  const json = /^application\/([\w.+-]*\+)?json\b/i.test(contentType ?? '');
  if (typeof body === 'string' && !json) return body;
  if (body === undefined || (typeof body === 'object' && body !== null && Object.keys(body).length === 0 && !Array.isArray(body))) return '';
  return JSON.stringify(body, null, 2);
}

function formats<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof UnknownFormatError) throw new DomainException('UNKNOWN_FORMAT', 400, e.message, { valid: e.valid });
    throw e;
  }
}

/** 413 for TOO_LARGE, 400 with the diagnostics when nothing could be read. */
function refuseUnreadable(diagnostics: Diagnostic[], unreadable: boolean): void {
  if (!unreadable) return;
  const large = diagnostics.find((d) => d.code === 'TOO_LARGE');
  if (large) throw new DomainException('TOO_LARGE', 413, large.message);
  const first = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
  const where = first?.position ? ` at line ${first.position.line}, column ${first.position.column}` : '';
  throw new DomainException('INVALID_DOCUMENT', 400, `the document cannot be read${where}: ${first?.message ?? 'empty document'}`, { diagnostics });
}

/**
 * 422 when the document was read but has errors: the output would be broken (an operation without
 * a valid method, a schedule that never fires), so none is sent. Warnings still answer 200.
 */
function refuseErrors(diagnostics: Diagnostic[]): void {
  if (!hasErrors(diagnostics)) return;
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0];
  const where = first.position ? ` (line ${first.position.line}, column ${first.position.column})` : '';
  const more = errors.length > 1 ? ` and ${errors.length - 1} more error${errors.length === 2 ? '' : 's'}` : '';
  throw new DomainException('DOCUMENT_HAS_ERRORS', 422, `the document has errors: ${first.code} at ${first.path || '/'}${where}: ${first.message}${more}`, { diagnostics });
}

/** Header values must be ASCII without newlines. */
function headerSafe(d: Diagnostic): Diagnostic {
  return { ...d, message: d.message.replace(/[^\x20-\x7e]/g, '?') };
}
