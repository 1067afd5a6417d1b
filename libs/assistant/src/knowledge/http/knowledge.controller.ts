import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { AdminRoute } from '@flowplane/platform/auth';
import { IngestKnowledgeDto, IngestResultView, KnowledgeIndexQuery, KnowledgeListView, KnowledgeRemovedView } from '../dto/knowledge.dto';
import { IngestKnowledgeUseCase } from '../use-cases/ingest-knowledge.use-case';

/** The knowledge the retrieval templates answer from (admin). */
@ApiTags('assistant-admin')
@ApiBearerAuth()
@Controller('admin/assistant')
export class KnowledgeController {
  constructor(private readonly knowledge: IngestKnowledgeUseCase) {}

  @Post('ingest')
  @HttpCode(200)
  @AdminRoute()
  @ApiOperation({ summary: 'Chunks, embeds and upserts documents into the knowledge index; re-ingesting an id replaces its chunks' })
  @ApiOkResponse({ type: IngestResultView })
  @ApiBadRequestResponse({ description: 'An invalid document (named), documents with no text (named), an invalid index name.' })
  @ApiPayloadTooLargeResponse({ description: 'The body is larger than HTTP_BODY_LIMIT; send fewer documents per request.' })
  @ApiServiceUnavailableResponse({ description: 'The search service or its embedder is unavailable.' })
  ingest(@Body() dto: IngestKnowledgeDto): Promise<IngestResultView> {
    return this.knowledge.ingest(dto.documents, dto.index);
  }

  @Get('knowledge')
  @AdminRoute()
  @ApiOperation({ summary: 'Ingested documents with their chunk counts' })
  @ApiOkResponse({ type: KnowledgeListView })
  async list(@Query() q: KnowledgeIndexQuery): Promise<KnowledgeListView> {
    const records = await this.knowledge.list();
    const documents = records
      .filter((r) => !q.index || r.index === q.index || r.index.endsWith(q.index))
      .map((r) => ({ id: r.docId, index: r.index, title: r.title, ...(r.url ? { url: r.url } : {}), format: r.format, chunks: r.chunks, chars: r.chars, updatedAt: new Date(r.updatedAt).toISOString() }));
    return { documents, chunks: documents.reduce((n, d) => n + d.chunks, 0) };
  }

  @Delete('knowledge/:id')
  @AdminRoute()
  @ApiOperation({ summary: 'Removes a document and all its chunks from the knowledge index' })
  @ApiOkResponse({ type: KnowledgeRemovedView })
  @ApiNotFoundResponse({ description: 'No such document in the index.' })
  remove(@Param('id') id: string, @Query() q: KnowledgeIndexQuery): Promise<KnowledgeRemovedView> {
    return this.knowledge.remove(id, q.index);
  }
}
