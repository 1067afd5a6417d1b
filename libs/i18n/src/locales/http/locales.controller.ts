import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Public } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { CreateLocaleDto, DeletedLocaleDto, LocaleViewDto, PublicLocaleDto, UpdateLocaleDto } from '../dto/locale.dto';
import { LocaleQueries } from '../use-cases/locale.queries';
import { CreateLocaleUseCase, DeleteLocaleUseCase, UpdateLocaleUseCase } from '../use-cases/write-locale.use-cases';

const CodeParam = () => ApiParam({ name: 'code', description: 'Locale code (its id)', example: 'cz' });

/** The locale registry (admin, under /api/v1/admin/i18n/locales). */
@ApiTags('i18n')
@Controller('admin/i18n/locales')
export class LocalesController {
  constructor(
    private readonly queries: LocaleQueries,
    private readonly createLocale: CreateLocaleUseCase,
    private readonly updateLocale: UpdateLocaleUseCase,
    private readonly deleteLocale: DeleteLocaleUseCase,
  ) {}

  @Get()
  @I18nAdmin()
  @ApiOperation({ summary: 'Every locale of the registry, with its language tag' })
  @ApiOkResponse({ type: [LocaleViewDto] })
  list(): Promise<LocaleViewDto[]> {
    return this.queries.list();
  }

  @Get(':code')
  @I18nAdmin()
  @CodeParam()
  @ApiOperation({ summary: 'One locale' })
  @ApiOkResponse({ type: LocaleViewDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  get(@Param('code') code: string): Promise<LocaleViewDto> {
    return this.queries.get(code);
  }

  @Post()
  @I18nAdmin()
  @ApiOperation({ summary: 'Register a locale' })
  @ApiCreatedResponse({ type: LocaleViewDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'A code that is not a URL segment, a language that is not BCP 47, unknown fields.' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'A locale with that code exists.' })
  create(@Body() dto: CreateLocaleDto): Promise<LocaleViewDto> {
    return this.createLocale.execute(dto);
  }

  @Put(':code')
  @I18nAdmin()
  @CodeParam()
  @ApiOperation({ summary: 'Change the language, name or active flag of a locale' })
  @ApiOkResponse({ type: LocaleViewDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  update(@Param('code') code: string, @Body() dto: UpdateLocaleDto): Promise<LocaleViewDto> {
    return this.updateLocale.execute(code, dto);
  }

  @Delete(':code')
  @I18nAdmin()
  @CodeParam()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Remove a locale from the registry (its messages stay)' })
  @ApiOkResponse({ type: DeletedLocaleDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  remove(@Param('code') code: string): Promise<DeletedLocaleDto> {
    return this.deleteLocale.execute(code);
  }
}

/** The active locales for frontends and sitemaps (public, under /api/v1/i18n/locales). */
@ApiTags('i18n')
@Controller('i18n/locales')
export class PublicLocalesController {
  constructor(private readonly queries: LocaleQueries) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'The active locales: code, language tag and name' })
  @ApiOkResponse({ type: [PublicLocaleDto] })
  list(): Promise<PublicLocaleDto[]> {
    return this.queries.listPublic();
  }
}
