import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { ReportKeysDto, ReportKeysResultDto } from '../dto/catalog.dto';
import { ReportKeysUseCase } from '../use-cases/report-keys.use-case';

/**
 * Key registration for the build-time extractor (under /api/v1/admin/i18n). Production turns the
 * public report-keys route off (I18N_AUTOREGISTER=false) so that anonymous callers cannot add keys;
 * the extractor still has to seed them, so it reports here with an admin token. Same use case as the
 * public route, so the write-once text, the note upsert and the module accumulation are identical.
 */
@ApiTags('i18n')
@Controller('admin/i18n')
export class AdminReportKeysController {
  constructor(private readonly reportKeys: ReportKeysUseCase) {}

  @Post('report-keys')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Register keys from a build-time extractor (admin; works while I18N_AUTOREGISTER=false)',
    description:
      'The authenticated form of `POST /i18n/report-keys`, for production, where that public route is off: `i18n-extract` reports through it when it has an admin token (`FLOWPLANE_TOKEN`, or one it mints with `AUTH_JWT_SECRET`). ' +
      'Same body and answer and the same rules: a new key is stored with its text in the source locale (provenance `code`); the text of a key that exists is never changed; a `context` is upserted on new and existing keys (`contextUpdated`); modules accumulate on the key, idempotently, and never touch translations. ' +
      'New keys and changed notes publish `i18n.keys_changed`. Not rate limited (the caller is an admin); at most 500 keys per call.',
  })
  @ApiOkResponse({ type: ReportKeysResultDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'More than 500 keys, a key over 200 or a text over 10,000 characters, unknown fields.' })
  report(@Body() dto: ReportKeysDto): Promise<ReportKeysResultDto> {
    return this.reportKeys.execute(dto);
  }
}
