import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiBadRequestResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '@flowplane/platform/auth';
import { currentLocale } from '@flowplane/platform/http';
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
      'Only fields declared `public: true` and not `sensitive`; any other field, and unknown modules and keys, answer the same 404, so a private field cannot be discovered. Localized fields answer one string for the locale: `locale`, else the request locale as every public read resolves it (query `lang`, cookie `lang`, the first Accept-Language tag, the configured default locale `I18N_DEFAULT_LOCALE`). The answer varies on Accept-Language and Cookie.',
  })
  @ApiParam({ name: 'module', description: 'Module that declares the setting.', example: 'site' })
  @ApiParam({ name: 'key', description: 'Setting key.', example: 'name' })
  @ApiQuery({ name: 'locale', required: false, description: 'Locale for a localized setting; chain: this locale, its base, the source locale, any non-empty value. Absent: the request locale (`lang` query, `lang` cookie, Accept-Language, the default locale); empty: the source language.', example: 'pl' })
  @ApiQuery({ name: 'lang', required: false, description: 'The request locale as every public read takes it; `locale` wins. Empty: the source language.' })
  @ApiOkResponse({ type: PublicSettingDto })
  @ApiNotFoundResponse({ type: SettingsErrorDto, description: 'Unknown, private or sensitive setting.' })
  @ApiBadRequestResponse({ type: SettingsErrorDto, description: 'Malformed locale.' })
  @Header('Vary', 'Accept-Language, Cookie')
  get(@Param('module') module: string, @Param('key') key: string, @Query() query: PublicSettingQueryDto): Promise<PublicSettingDto> {
    // An explicit empty value asks for the source language (settings rule 9); nothing given means
    // the locale the request middleware resolved, as pages, fragments and the catalog read it.
    return this.readPublic.execute(module, key, query.locale ?? query.lang ?? currentLocale());
  }
}
