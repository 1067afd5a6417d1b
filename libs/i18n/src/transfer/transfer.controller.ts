import { Controller, Get, HttpCode, Post, Query, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, ApiUnsupportedMediaTypeResponse, ApiConflictResponse, ApiBadRequestResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { isUtf8 } from 'node:buffer';
import { AdminRoute, CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { DomainException, ErrorBodyDto } from '@flowplane/platform/http';
import { ExportQueryDto, ImportQueryDto, ImportReportDto } from './transfer.dto';
import { FORMAT_MEDIA } from './transfer.formats';
import type { TransferFormat } from './transfer.model';
import { ExportTranslationsUseCase, ImportTranslationsUseCase } from './transfer.use-cases';

/** Largest translation file an import reads (raw body or multipart file). */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;

const MEDIA_FORMATS: Record<string, TransferFormat> = {
  'application/json': 'json',
  'application/xliff+xml': 'xliff',
  'application/x-xliff+xml': 'xliff',
  'application/xml': 'xliff',
  'text/xml': 'xliff',
  'text/x-gettext-translation': 'po',
  'text/x-po': 'po',
  'application/x-gettext': 'po',
  'application/x-po': 'po',
  'text/plain': 'po',
};

const EXTENSION_FORMATS: Record<string, TransferFormat> = { json: 'json', xlf: 'xliff', xliff: 'xliff', po: 'po', pot: 'po' };

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

async function readRaw(req: Request, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new DomainException('PAYLOAD_TOO_LARGE', 413, `a translation file is at most ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function decode(buf: Buffer): string {
  if (!isUtf8(buf)) throw new DomainException('INVALID_UTF8', 400, 'the translation file is not valid UTF-8');
  return buf.toString('utf8').replace(/^\uFEFF/, '');
}

/** Translators' files: export and import of JSON, XLIFF 2.0 and gettext PO (admin). */
@ApiTags('i18n')
@ApiBearerAuth()
@Controller('admin/i18n')
export class TransferController {
  constructor(
    private readonly exporter: ExportTranslationsUseCase,
    private readonly importer: ImportTranslationsUseCase,
  ) {}

  @Get('export')
  @AdminRoute()
  @ApiOperation({
    summary: 'Export one namespace in one locale as JSON (flat or nested), XLIFF 2.0 or gettext PO, for Weblate, Crowdin, Tolgee or Poedit',
    description:
      'The raw namespaced texts (catalog rule 6: no fallback; untranslated keys are left out of JSON and have an empty target in XLIFF and PO). ' +
      'XLIFF and PO are bilingual: the source-locale text (I18N_SOURCE_LOCALE) as source/msgid, the translator note as <note>/#., the key as unit id/msgctxt. ' +
      'PO maps a value that is exactly one ICU plural argument with the language\'s gettext categories to msgid_plural and msgstr[n] (Plural-Forms header in CLDR category order); other ICU values stay text. ' +
      'The answer carries X-Exported-At (also in the PO header), which an import uses to find human edits made since.',
  })
  @ApiProduces(...Object.values(FORMAT_MEDIA).map((m) => m.contentType.split(';')[0]))
  @ApiOkResponse({ description: 'The file, as an attachment named <ns|default>.<locale>.<json|xlf|po>.', schema: { type: 'string' } })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'Missing or malformed locale, unknown format or query field.' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'nested=true while a key is also the prefix of another (a.b and a.b.c): export flat JSON.' })
  async export(@Query() q: ExportQueryDto, @Res({ passthrough: true }) res: Response): Promise<string> {
    const format = q.format ?? 'json';
    const ns = q.ns ?? '';
    const { body, exportedAt } = await this.exporter.execute(format, ns, q.locale, q.nested === 'true');
    const media = FORMAT_MEDIA[format];
    res.setHeader('Content-Type', media.contentType);
    res.setHeader('Content-Disposition', `attachment; filename="${encodeURIComponent(ns || 'default')}.${encodeURIComponent(q.locale)}.${media.extension}"`);
    res.setHeader('X-Exported-At', exportedAt);
    return body;
  }

  @Post('import')
  @HttpCode(200)
  @AdminRoute()
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: IMPORT_MAX_BYTES, files: 1 } }))
  @ApiOperation({
    summary: 'Import a JSON, XLIFF 2.0 or gettext PO file into one namespace and locale; a dry run unless apply=true',
    description:
      'The file is the raw request body (Content-Type application/json, application/xliff+xml or application/x-xliff+xml, text/x-gettext-translation or text/plain for PO; ?format= overrides) ' +
      'or the field `file` of a multipart/form-data upload, as the Weblate and Tolgee upload APIs take it (format from ?format=, else the file name: .json, .xlf/.xliff, .po). At most 5 MB. ' +
      'JSON may be flat or nested (nested keys join with dots). Written texts get provenance human. New keys are created with the file\'s source text and note and announced by i18n.keys_changed (reason added); ' +
      'a file in the source locale that changes a source text announces source_changed. ' +
      'A conflict is an imported text that differs from the stored one while (a) the locale holds a candidate of the review gate, (b) the stored text is human and changed after the export (?since= or the PO header X-Flowplane-Exported-At), or (c) the file was made from another source text; conflicts are reported and written only with force=true (then listed in `overridden` and counted in created or updated). ' +
      'Every changed text of a locale other than the source locale is checked against its source text (the stored one; for a new key, the file\'s) with the format signature machine translation uses: ' +
      '`{placeholder}` names, Go-template fields, settings tokens, ICU plural and select structure with the plural categories the target language needs (Polish one, few, many, other), HTML tags and their attribute values (alt, title, placeholder and aria labels may be translated). ' +
      'A text that breaks it is listed in `broken` with the reason and left alone unless force=true (then written, written: true). ' +
      'Untranslated entries (empty target, fuzzy PO entries) are never imported, so an import never removes a translation.',
  })
  @ApiConsumes('application/json', 'application/xliff+xml', 'application/x-xliff+xml', 'text/x-gettext-translation', 'text/plain', 'multipart/form-data')
  @ApiBody({
    description: 'The translation file (or, for multipart, a form with the field `file`).',
    schema: { oneOf: [{ type: 'string' }, { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] }] },
  })
  @ApiOkResponse({ type: ImportReportDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'A file that is not valid in its format (details: format, line, column), a locale missing or differing from the file\'s, a bad key or value (details per key).' })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorBodyDto, description: 'A Content-Type that names no format, without ?format=.' })
  async import(
    @Query() q: ImportQueryDto,
    @Req() req: Request,
    @CurrentPrincipal() who: Principal,
    @UploadedFile() file?: { buffer: Buffer; originalname?: string; mimetype?: string },
  ): Promise<ImportReportDto> {
    let format = q.format;
    let body: unknown;
    if (file) {
      const ext = (file.originalname ?? '').split('.').pop()?.toLowerCase() ?? '';
      format ??= EXTENSION_FORMATS[ext] ?? MEDIA_FORMATS[mediaType(file.mimetype)];
      body = decode(file.buffer);
    } else {
      const type = mediaType(req.headers['content-type']);
      if (type === 'multipart/form-data') throw new DomainException('I18N_INVALID_INPUT', 400, 'the multipart form has no field `file`');
      format ??= MEDIA_FORMATS[type];
      // The platform's JSON parser has read application/json already (its syntax errors answer 400 with a line).
      body = type === 'application/json' ? req.body : decode(await readRaw(req, IMPORT_MAX_BYTES));
      if (body === undefined || body === '') throw new DomainException('I18N_INVALID_INPUT', 400, 'the request has no translation file');
    }
    if (!format) {
      throw new DomainException('UNSUPPORTED_MEDIA_TYPE', 415, 'cannot tell the file format: send ?format=json|xliff|po or a Content-Type such as application/xliff+xml or text/x-gettext-translation');
    }
    return this.importer.execute({
      format,
      ns: q.ns ?? '',
      locale: q.locale,
      body,
      apply: q.apply === 'true',
      force: q.force === 'true',
      since: q.since ? new Date(q.since) : undefined,
      by: who.sub,
    });
  }
}
