import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res, UseInterceptors } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AdminRoute } from '@flowplane/platform/auth';
import { SearchErrorsInterceptor } from '../domain/search.errors';
import { SearchService } from '../domain/search.service';
import {
  CreatedIndexViewDto,
  CreateIndexDto,
  DeleteDocumentsDto,
  DeleteResultDto,
  EntitiesDto,
  IndexListDto,
  ReindexResultDto,
  SearchIndexViewDto,
  UpsertDocumentsDto,
  UpsertResultDto,
} from '../dto/search.dto';
import { SearchOwners } from '../freshness/search-owners.registry';
import { INDEX_PARAM } from './search.controller';

export const SearchPerms = {
  indexList: 'search:index:list',
  indexWrite: 'search:index:write',
  docWrite: 'search:doc:write',
  docDelete: 'search:doc:delete',
} as const;

/** Admin search routes (spec "Search, admin"): an active user with admin:access plus the route's permission. */
@ApiTags('search-admin')
@Controller('admin/search')
@UseInterceptors(SearchErrorsInterceptor)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.' })
@ApiForbiddenResponse({ description: 'Missing admin:access or the permission named in the summary.' })
@ApiServiceUnavailableResponse({ description: 'The vector store (or, for text, the embedding provider) is unavailable.' })
export class AdminSearchController {
  constructor(
    private readonly search: SearchService,
    private readonly owners: SearchOwners,
  ) {}

  @Get('indexes')
  @AdminRoute(SearchPerms.indexList)
  @ApiOperation({ summary: 'List indexes (search:index:list)' })
  @ApiOkResponse({ type: IndexListDto })
  async list(): Promise<IndexListDto> {
    return { indexes: await this.search.listIndexes() };
  }

  @Post('indexes')
  @AdminRoute(SearchPerms.indexWrite)
  @ApiOperation({
    summary: 'Create an index (search:index:write)',
    description: 'Idempotent: the same name, dim and distance again answers 200 with `created: false`; a different dim or distance is 400.',
  })
  @ApiCreatedResponse({ type: CreatedIndexViewDto })
  @ApiOkResponse({ type: CreatedIndexViewDto, description: 'Already existed with these parameters.' })
  @ApiBadRequestResponse({ description: 'Invalid name or dim, or the index exists with another dim or distance.' })
  async create(@Body() body: CreateIndexDto, @Res({ passthrough: true }) res: Response): Promise<CreatedIndexViewDto> {
    const created = await this.search.createIndex(body.name, body.dim, body.distance);
    res.status(created.created ? 201 : 200);
    return created;
  }

  @Get('indexes/:name')
  @AdminRoute(SearchPerms.indexList)
  @ApiOperation({ summary: 'Index metadata: dimension, distance, points count (search:index:list)' })
  @ApiParam(INDEX_PARAM)
  @ApiOkResponse({ type: SearchIndexViewDto })
  @ApiNotFoundResponse({ description: 'No such index.' })
  get(@Param('name') name: string): Promise<SearchIndexViewDto> {
    return this.search.getIndex(name);
  }

  @Delete('indexes/:name')
  @HttpCode(204)
  @AdminRoute(SearchPerms.indexWrite)
  @ApiOperation({ summary: 'Remove an index and all its vectors (search:index:write)' })
  @ApiParam(INDEX_PARAM)
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiNotFoundResponse({ description: 'No such index.' })
  async remove(@Param('name') name: string): Promise<void> {
    await this.search.deleteIndex(name);
  }

  @Post('indexes/:name/upsert')
  @HttpCode(200)
  @AdminRoute(SearchPerms.docWrite)
  @ApiOperation({
    summary: 'Upsert documents (search:doc:write)',
    description: 'Body `{documents: [{id, text?, vector?, payload?}]}`: exactly one of text or vector per document; texts are embedded in one call. The whole batch is checked before anything is written.',
  })
  @ApiParam(INDEX_PARAM)
  @ApiOkResponse({ type: UpsertResultDto })
  @ApiBadRequestResponse({ description: 'A document without or with both text and vector, a vector of the wrong dimension, a bad id, or the reserved payload key `_id` (the message names the document).' })
  @ApiNotFoundResponse({ description: 'No such index.' })
  upsert(@Param('name') name: string, @Body() body: UpsertDocumentsDto): Promise<UpsertResultDto> {
    return this.search.upsert(name, body.documents);
  }

  @Post('indexes/:name/delete')
  @HttpCode(200)
  @AdminRoute(SearchPerms.docDelete)
  @ApiOperation({ summary: 'Delete documents by id (search:doc:delete)', description: 'Body `{ids: [string]}`; unknown ids are ignored.' })
  @ApiParam(INDEX_PARAM)
  @ApiOkResponse({ type: DeleteResultDto })
  @ApiNotFoundResponse({ description: 'No such index.' })
  deleteDocuments(@Param('name') name: string, @Body() body: DeleteDocumentsDto): Promise<DeleteResultDto> {
    return this.search.deleteDocuments(name, body.ids);
  }

  @Post('indexes/:name/reindex')
  @HttpCode(200)
  @AdminRoute(SearchPerms.indexWrite)
  @ApiOperation({
    summary: 'Rebuild an index from its owner (search:index:write)',
    description:
      'Re-embeds and upserts everything the registered owner lists into a fresh collection, then switches the alias in one atomic step: queries keep answering from the old index during the rebuild. Answers `{index, documents, status: "ok", pruned}`.',
  })
  @ApiParam(INDEX_PARAM)
  @ApiOkResponse({ type: ReindexResultDto })
  @ApiResponse({ status: 501, description: 'No owner registered a reindexer for this index.' })
  reindex(@Param('name') name: string): Promise<ReindexResultDto> {
    return this.search.reindex(name);
  }

  @Get('entities')
  @AdminRoute(SearchPerms.indexList)
  @ApiOperation({ summary: 'Reindexable indexes (search:index:list)', description: '`reindexable` lists the index names with a registered owner; `owners` says which module owns each.' })
  @ApiOkResponse({ type: EntitiesDto })
  entities(): EntitiesDto {
    const owners = this.owners.reindexable();
    return { reindexable: owners.map((o) => o.index), owners };
  }
}
