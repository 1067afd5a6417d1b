import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { StoredGlossaryService } from '../glossary/stored-glossary.service';
import { GlossaryDto } from './glossary.dto';

/** The translation glossary (admin, under /api/v1/admin/i18n/glossary): injected into prompts, enforced on candidates. */
@ApiTags('i18n')
@Controller('admin/i18n/glossary')
export class GlossaryController {
  constructor(private readonly glossary: StoredGlossaryService) {}

  @Get()
  @I18nAdmin()
  @ApiOperation({ summary: 'The translation glossary' })
  @ApiOkResponse({ type: GlossaryDto })
  async get(): Promise<GlossaryDto> {
    return { entries: [...(await this.glossary.entries())] };
  }

  @Put()
  @I18nAdmin()
  @ApiOperation({ summary: 'Replace the translation glossary (at most 500 entries)' })
  @ApiOkResponse({ type: GlossaryDto, description: 'The stored list.' })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  async replace(@Body() dto: GlossaryDto): Promise<GlossaryDto> {
    return { entries: await this.glossary.replace(dto.entries) };
  }
}
