import { CellAddressDto } from '../../shared/cell-address.dto';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { I18nPageQueryDto } from '../../shared/page-query.dto';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsLocaleCode, IsMessageText, IsNamespace } from '../../shared/i18n-fields';

/** Body of `PUT /admin/i18n/messages`: create or update one message (provenance `human`). */
export class PutMessageDto extends CellAddressDto {
  @ApiProperty({ example: 'Zapłać {{.Amount}}', description: 'Text; may hold Go-template placeholders.' })
  @IsMessageText()
  @IsNotEmpty({ message: 'value must not be empty (DELETE removes a message)' })
  value!: string;
}

/** Query of `GET /admin/i18n/messages`. */
export class ListMessagesQueryDto extends I18nPageQueryDto {
  @ApiPropertyOptional({ description: 'Namespace; absent means every namespace, empty the default one.' })
  @IsOptional()
  @IsNamespace()
  ns?: string;

  @ApiPropertyOptional({ example: 'pl' })
  @IsOptional()
  @IsLocaleCode()
  locale?: string;

  @ApiPropertyOptional({ description: 'Case-insensitive text in the key or the value.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}

/** Query of `DELETE /admin/i18n/messages`: key and locale are required. */
export class DeleteMessageQueryDto extends CellAddressDto {}

/** One message: a (namespace, key, locale) cell. */
export class MessageViewDto {
  @ApiProperty({ example: '' })
  ns!: string;

  @ApiProperty({ example: 'checkout.pay' })
  key!: string;

  @ApiProperty({ example: 'pl' })
  locale!: string;

  @ApiProperty({ example: 'Zapłać' })
  value!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Provenance of this locale: {source, by, at, ...}.' })
  provenance?: Record<string, unknown>;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When this locale\'s text was first written; null when the record was stored without it (written by an older version or by hand).' })
  createdAt!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last change of this locale\'s text; null when the record was stored without it.' })
  updatedAt!: string | null;
}

/** A page of messages. */
export class MessagePageDto {
  @ApiProperty({ type: [MessageViewDto] })
  items!: MessageViewDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last one.' })
  nextCursor!: string | null;
}

/** Answer of `DELETE /admin/i18n/messages`. */
export class DeletedMessageDto {
  @ApiProperty()
  deleted!: boolean;

  @ApiProperty({ example: '' })
  ns!: string;

  @ApiProperty()
  key!: string;

  @ApiProperty()
  locale!: string;
}
