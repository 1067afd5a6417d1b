import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { I18nPageQueryDto } from '../../shared/page-query.dto';
import { CellAddressDto } from '../../shared/cell-address.dto';
import { IsMessageText, IsNamespace } from '../../shared/i18n-fields';

/** Query of `GET /admin/i18n/translations/pending`. */
export class ListPendingQueryDto extends I18nPageQueryDto {
  @ApiPropertyOptional({ description: 'Namespace; absent means every namespace, empty the default one.' })
  @IsOptional()
  @IsNamespace()
  ns?: string;
}

/** Body of `POST /admin/i18n/translations/pending/approve`. */
export class ApprovePendingDto extends CellAddressDto {
  @ApiPropertyOptional({ description: 'Edited text: published as human text. Absent or unchanged: the candidate goes live as machine text, approved.' })
  @IsOptional()
  @IsMessageText('text')
  text?: string;
}

/** Body of `POST /admin/i18n/translations/pending/reject`. */
export class RejectPendingDto extends CellAddressDto {
  @ApiPropertyOptional({ example: 'wrong sense of "charge"' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

export class ReaderViewDto {
  @ApiProperty()
  text!: string;

  @ApiProperty({ type: String, nullable: true, description: 'Locale of the chain the text comes from; null when readers see the key itself.' })
  locale!: string | null;
}

export class PendingEntryViewDto {
  @ApiProperty({ enum: ['held', 'rejected'] })
  status!: 'held' | 'rejected';

  @ApiProperty({ description: 'The held candidate (never served).' })
  candidate!: string;

  @ApiPropertyOptional({ description: 'Model that produced it.' })
  by?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: "The reviewer's verdict {ok, reason, suggestion, reviewer}." })
  review?: Record<string, unknown>;

  @ApiProperty()
  at!: string;

  @ApiProperty({ description: 'The source or note changed since: the entry no longer blocks translation.' })
  released!: boolean;

  @ApiProperty({ type: ReaderViewDto, description: 'What readers of this locale see now.' })
  readersSee!: ReaderViewDto;
}

export class PendingSourceDto {
  @ApiProperty()
  locale!: string;

  @ApiProperty({ type: String, nullable: true })
  text!: string | null;
}

export class PendingItemDto {
  @ApiProperty()
  ns!: string;

  @ApiProperty()
  key!: string;

  @ApiPropertyOptional({ description: 'Translator note.' })
  context?: string;

  @ApiProperty({ type: PendingSourceDto })
  source!: PendingSourceDto;

  @ApiProperty({ type: 'object', additionalProperties: { $ref: '#/components/schemas/PendingEntryViewDto' }, description: 'Locale to its held or rejected entry.' })
  entries!: Record<string, PendingEntryViewDto>;
}

export class PendingPageDto {
  @ApiProperty({ type: [PendingItemDto] })
  items!: PendingItemDto[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor!: string | null;
}
