import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiBadRequestResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '@flowplane/platform/auth';
import { PublicSettingDto, PublicSettingQueryDto } from '../dto/public-setting.dto';
import { SettingsErrorDto } from '../dto/settings-error.dto';
import { ReadPublicSettingUseCase } from '../use-cases/read-public-setting.use-case';

/** Public reads of module settings declared `public` and not `sensitive`. */
@ApiTags('settings')
@Controller('settings')
export class PublicSettingsController {
  constructor(private readonly readPublic: ReadPublicSettingUseCase) {}

  @Get(':module/:key')
  @Public()
  @ApiOperation({
    summary: 'Read one public setting (no token needed)',
    description:
      'Only fields declared `public: true` and not `sensitive`; any other field, and unknown modules and keys, answer the same 404, so a private field cannot be discovered. Localized fields answer one string for `locale`.',
  })
  @ApiParam({ name: 'module', description: 'Module that declares the setting.', example: 'site' })
  @ApiParam({ name: 'key', description: 'Setting key.', example: 'name' })
  @ApiQuery({ name: 'locale', required: false, description: 'Locale for a localized setting; chain: this locale, its base, the source locale, any non-empty value. Empty or absent: the source language.', example: 'pl' })
  @ApiQuery({ name: 'lang', required: false, description: 'Alias of `locale`; `locale` wins.' })
  @ApiOkResponse({ type: PublicSettingDto })
  @ApiNotFoundResponse({ type: SettingsErrorDto, description: 'Unknown, private or sensitive setting.' })
  @ApiBadRequestResponse({ type: SettingsErrorDto, description: 'Malformed locale.' })
  get(@Param('module') module: string, @Param('key') key: string, @Query() query: PublicSettingQueryDto): Promise<PublicSettingDto> {
    return this.readPublic.execute(module, key, query.locale || query.lang);
  }
}
