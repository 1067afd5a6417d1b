import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { KNOWLEDGE_FORMATS, type KnowledgeFormat } from '../domain/chunker';

const INDEX_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;

/** One document to ingest (checked by the use case, which names each bad document). */
export class KnowledgeDocumentDto {
  @ApiProperty({ example: 'refund-policy', description: 'Stable id: ingesting the same id again replaces the document.' })
  @Allow()
  id!: string;

  @ApiProperty({ example: 'Refund policy' })
  @Allow()
  title!: string;

  @ApiPropertyOptional({ example: 'https://example.com/help/refunds' })
  @Allow()
  url?: string;

  @ApiProperty({ example: '# Refunds\n\nRefunds are paid within 14 days.' })
  @Allow()
  text!: string;

  @ApiPropertyOptional({ enum: KNOWLEDGE_FORMATS, default: 'markdown' })
  @Allow()
  format?: KnowledgeFormat;
}

/** Body of POST /admin/assistant/ingest. */
export class IngestKnowledgeDto {
  @ApiProperty({ type: [KnowledgeDocumentDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @ValidateNested({ each: true })
  @Type(() => KnowledgeDocumentDto)
  documents!: KnowledgeDocumentDto[];

  @ApiPropertyOptional({ example: 'svc_docs', description: 'Index name, with or without the search prefix; default `docs` (`svc_docs`).' })
  @IsOptional()
  @IsString()
  @Matches(INDEX_PATTERN, { message: 'index must be 1-64 letters, digits, "_" or "-"' })
  index?: string;
}

export class KnowledgeIndexQuery {
  @ApiPropertyOptional({ example: 'svc_docs', description: 'Default `docs` (`svc_docs`).' })
  @IsOptional()
  @IsString()
  @Matches(INDEX_PATTERN, { message: 'index must be 1-64 letters, digits, "_" or "-"' })
  index?: string;
}

export class IngestedDocumentView {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'Chunks stored now.' }) chunks!: number;
  @ApiProperty({ description: 'Chunks the previous version had (0 when new).' }) previousChunks!: number;
}

export class IngestResultView {
  @ApiProperty({ example: 'svc_docs' }) index!: string;
  @ApiProperty({ type: [IngestedDocumentView] }) documents!: IngestedDocumentView[];
  @ApiProperty({ description: 'Chunks the documents have now.' }) chunks!: number;
  @ApiProperty({ description: 'Chunks embedded and upserted; the others were unchanged since the last ingest.' }) embeddedChunks!: number;
  @ApiProperty({ description: 'Chunks of previous versions beyond the new count, deleted.' }) removedChunks!: number;
  @ApiProperty() ms!: number;
}

export class KnowledgeItemView {
  @ApiProperty() id!: string;
  @ApiProperty({ example: 'svc_docs' }) index!: string;
  @ApiProperty() title!: string;
  @ApiPropertyOptional() url?: string;
  @ApiProperty({ enum: KNOWLEDGE_FORMATS }) format!: string;
  @ApiProperty() chunks!: number;
  @ApiProperty() chars!: number;
  @ApiProperty() updatedAt!: string;
}

export class KnowledgeListView {
  @ApiProperty({ type: [KnowledgeItemView] }) documents!: KnowledgeItemView[];
  @ApiProperty() chunks!: number;
}

export class KnowledgeRemovedView {
  @ApiProperty() index!: string;
  @ApiProperty() id!: string;
  @ApiProperty() removedChunks!: number;
}
