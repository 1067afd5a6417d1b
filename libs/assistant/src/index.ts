export * from './assistant.module';
export * from './assistant.definition';
export { IngestKnowledgeUseCase } from './knowledge/use-cases/ingest-knowledge.use-case';
export { RagContextController } from './knowledge/nodes/rag-context.controller';
