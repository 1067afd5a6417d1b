import { Body, Controller, Delete, Get, HttpStatus, Param, Put, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import {
  ContentPageQueryDto,
  DeletedContentDto,
  FragmentPageDto,
  FragmentViewDto,
  PagePageDto,
  PageViewDto,
  PutFragmentDto,
  PutPageDto,
} from '../dto/content.dto';
import { ContentQueries } from '../use-cases/content.queries';
import { DeleteFragmentUseCase, PutFragmentUseCase } from '../use-cases/fragment-writes.use-case';
import { DeletePageUseCase, PutPageUseCase } from '../use-cases/page-writes.use-case';

const SlugParam = () => ApiParam({ name: 'slug', description: 'Lowercase letters and digits in words joined by "-".', example: 'about-us' });
const KeyParam = () => ApiParam({ name: 'key', description: 'Lowercase letters and digits in words joined by "-", "_" or ".".', example: 'footer' });

/** Pages: localized title, HTML body and SEO fields with their translation state (admin, under /api/v1/admin/content/pages). */
@ApiTags('content')
@Controller('admin/content/pages')
export class AdminPagesController {
  constructor(
    private readonly queries: ContentQueries,
    private readonly putPage: PutPageUseCase,
    private readonly deletePage: DeletePageUseCase,
  ) {}

  @Get()
  @I18nAdmin()
  @ApiOperation({ summary: 'Pages in slug order, a page at a time, with the translation state of every active locale' })
  @ApiOkResponse({ type: PagePageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  list(@Query() q: ContentPageQueryDto): Promise<PagePageDto> {
    return this.queries.pages(q);
  }

  @Get(':slug')
  @I18nAdmin()
  @SlugParam()
  @ApiOperation({ summary: 'One page as stored, with its translation state' })
  @ApiOkResponse({ type: PageViewDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  get(@Param('slug') slug: string): Promise<PageViewDto> {
    return this.queries.page(slug);
  }

  @Put(':slug')
  @I18nAdmin()
  @SlugParam()
  @ApiOperation({ summary: 'Create or replace a page (title, body and SEO per locale; translation flags where given)' })
  @ApiOkResponse({ type: PageViewDto, description: 'Updated.' })
  @ApiCreatedResponse({ type: PageViewDto, description: 'Created.' })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'A bad slug, a map that is not locale code to text, a text over its limit, unknown fields.' })
  async put(@Param('slug') slug: string, @Body() dto: PutPageDto, @Res({ passthrough: true }) res: Response): Promise<PageViewDto> {
    const { view, created } = await this.putPage.execute(slug, dto);
    res.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    return view;
  }

  @Delete(':slug')
  @I18nAdmin()
  @SlugParam()
  @ApiOperation({ summary: 'Delete a page' })
  @ApiOkResponse({ type: DeletedContentDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  remove(@Param('slug') slug: string): Promise<DeletedContentDto> {
    return this.deletePage.execute(slug);
  }
}

/** Fragments: free-form JSON blocks with `_i18n` leaves (admin, under /api/v1/admin/content/fragments). */
@ApiTags('content')
@Controller('admin/content/fragments')
export class AdminFragmentsController {
  constructor(
    private readonly queries: ContentQueries,
    private readonly putFragment: PutFragmentUseCase,
    private readonly deleteFragment: DeleteFragmentUseCase,
  ) {}

  @Get()
  @I18nAdmin()
  @ApiOperation({ summary: 'Fragments in key order, a page at a time, stored form with translation state' })
  @ApiOkResponse({ type: FragmentPageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  list(@Query() q: ContentPageQueryDto): Promise<FragmentPageDto> {
    return this.queries.fragments(q);
  }

  @Get(':key')
  @I18nAdmin()
  @KeyParam()
  @ApiOperation({ summary: 'One fragment as stored, `_i18n` markers intact' })
  @ApiOkResponse({ type: FragmentViewDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  get(@Param('key') key: string): Promise<FragmentViewDto> {
    return this.queries.fragment(key);
  }

  @Put(':key')
  @I18nAdmin()
  @KeyParam()
  @ApiOperation({ summary: 'Create or replace a fragment' })
  @ApiOkResponse({ type: FragmentViewDto, description: 'Updated.' })
  @ApiCreatedResponse({ type: FragmentViewDto, description: 'Created.' })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'A bad key, a field name starting with `$` (details name its JSON Pointer), a malformed `_i18n` leaf, data nested deeper than 32 levels.' })
  @ApiPayloadTooLargeResponse({ type: ErrorBodyDto, description: 'More than 20,000 leaves or 1 MiB of JSON.' })
  async put(@Param('key') key: string, @Body() dto: PutFragmentDto, @Res({ passthrough: true }) res: Response): Promise<FragmentViewDto> {
    const { view, created } = await this.putFragment.execute(key, dto);
    res.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    return view;
  }

  @Delete(':key')
  @I18nAdmin()
  @KeyParam()
  @ApiOperation({ summary: 'Delete a fragment' })
  @ApiOkResponse({ type: DeletedContentDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  remove(@Param('key') key: string): Promise<DeletedContentDto> {
    return this.deleteFragment.execute(key);
  }
}
