import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute } from '@flowplane/platform/auth';
import { CoverageQueryDto, CoverageViewDto } from '../transfer/transfer.dto';
import { CoverageUseCase } from './coverage.use-case';

/** Translation coverage (admin). */
@ApiTags('i18n')
@ApiBearerAuth()
@Controller('admin/i18n/coverage')
export class CoverageController {
  constructor(private readonly coverage: CoverageUseCase) {}

  @Get()
  @AdminRoute()
  @ApiOperation({
    summary: 'Translation coverage per namespace and locale: keys, translated, machine, human, stale and pending, as numbers and percentages',
    description: 'Computed on the raw namespaced form (catalog rule 6): a key counts as translated only when the locale itself holds a text, never through the fallback chain.',
  })
  @ApiOkResponse({ type: CoverageViewDto })
  async get(@Query() q: CoverageQueryDto): Promise<CoverageViewDto> {
    return { items: await this.coverage.execute({ ns: q.ns, locale: q.locale }) };
  }
}
