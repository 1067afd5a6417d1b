import { Module } from '@nestjs/common';
import { KnowledgeController } from './http/knowledge.controller';
import { RagContextController } from './nodes/rag-context.controller';
import { RagNodeRegistrar } from './nodes/rag-node.registrar';
import { KnowledgeRepository } from './persistence/knowledge.repository';
import { IngestKnowledgeUseCase } from './use-cases/ingest-knowledge.use-case';
import { KnowledgeSearchClient } from './use-cases/search.client';

/**
 * Knowledge for the retrieval templates: the ingest use case (chunk, embed through the search
 * service, replace a document's old chunks) behind the admin routes, and the
 * `svc/assistant-rag-context` node that reads the same index.
 */
@Module({
  controllers: [KnowledgeController, RagContextController],
  providers: [KnowledgeRepository, KnowledgeSearchClient, IngestKnowledgeUseCase, RagNodeRegistrar],
  exports: [IngestKnowledgeUseCase, RagNodeRegistrar],
})
export class KnowledgeModule {}
