import { Body, Controller, Get, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiServiceUnavailableResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ActiveUser } from '@flowplane/platform/auth';
import { SearchErrorsInterceptor } from '../domain/search.errors';
import { SearchService } from '../domain/search.service';
import { IndexListDto, SearchQueryDto, SearchResultDto, SearchStatusDto } from '../dto/search.dto';

export const INDEX_PARAM = { name: 'name', description: 'Logical index name (without the prefix).' };

/** Public search routes (spec "Search, public"): any active, authenticated user. */
@ApiTags('search')
@Controller('search')
@UseInterceptors(SearchErrorsInterceptor)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.' })
@ApiForbiddenResponse({ description: 'Inactive user.' })
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get('status')
  @ActiveUser()
  @ApiOperation({ summary: 'Configuration snapshot: backend, prefix, embedding provider, model and dimension' })
  @ApiOkResponse({ type: SearchStatusDto })
  status(): Promise<SearchStatusDto> {
    return this.search.status();
  }

  @Get('indexes')
  @ActiveUser()
  @ApiOperation({ summary: 'Indexes under the current prefix, prefix stripped', description: 'Answers `{indexes: [{name, dim, distance, points}]}`. Indexes under another prefix (after `search.index_prefix` changed) are not listed.' })
  @ApiOkResponse({ type: IndexListDto })
  @ApiServiceUnavailableResponse({ description: 'The vector store is unavailable.' })
  async indexes(): Promise<IndexListDto> {
    return { indexes: await this.search.listIndexes() };
  }

  @Post('indexes/:name/query')
  @HttpCode(200)
  @ActiveUser()
  @ApiOperation({
    summary: 'Nearest-neighbour query by text or vector',
    description:
      'Body `{text?, vector?, limit?, payload?, filter?}` with exactly one of text or vector. Answers `{index, hits: [{id, score, payload}], limit, exhausted}`; `exhausted` is true when fewer than `limit` points matched.',
  })
  @ApiParam(INDEX_PARAM)
  @ApiOkResponse({ type: SearchResultDto })
  @ApiBadRequestResponse({ description: 'Neither or both of text and vector, a vector of the wrong dimension, or an unsupported filter clause (named in the message).' })
  @ApiNotFoundResponse({ description: 'No such index.' })
  @ApiServiceUnavailableResponse({ description: 'The vector store or the embedding provider is unavailable.' })
  query(@Param('name') name: string, @Body() body: SearchQueryDto): Promise<SearchResultDto> {
    return this.search.query(name, body);
  }
}
