import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Put, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { DeletedMessageDto, DeleteMessageQueryDto, ListMessagesQueryDto, MessagePageDto, MessageViewDto, PutMessageDto } from '../dto/message.dto';
import { DeleteMessageUseCase } from '../use-cases/delete-message.use-case';
import { PutMessageUseCase } from '../use-cases/put-message.use-case';
import { TranslationQueries } from '../use-cases/translation.queries';

/** Messages, one (namespace, key, locale) cell each (admin, under /api/v1/admin/i18n/messages). */
@ApiTags('i18n')
@Controller('admin/i18n/messages')
export class AdminMessagesController {
  constructor(
    private readonly queries: TranslationQueries,
    private readonly putMessage: PutMessageUseCase,
    private readonly deleteMessage: DeleteMessageUseCase,
  ) {}

  @Get()
  @I18nAdmin()
  @ApiOperation({ summary: 'Messages by namespace, locale and text, a page at a time' })
  @ApiOkResponse({ type: MessagePageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  list(@Query() q: ListMessagesQueryDto): Promise<MessagePageDto> {
    return this.queries.messages(q);
  }

  @Put()
  @I18nAdmin()
  @ApiOperation({ summary: 'Create or update one message (provenance human)' })
  @ApiOkResponse({ type: MessageViewDto, description: 'Updated.' })
  @ApiCreatedResponse({ type: MessageViewDto, description: 'Created.' })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  async put(@Body() dto: PutMessageDto, @CurrentPrincipal() who: Principal, @Res({ passthrough: true }) res: Response): Promise<MessageViewDto> {
    const { message, created } = await this.putMessage.execute(dto, who?.sub);
    res.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    return message;
  }

  @Delete()
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Delete one message; key and locale are required' })
  @ApiOkResponse({ type: DeletedMessageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'key or locale missing or malformed.' })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  remove(@Query() q: DeleteMessageQueryDto): Promise<DeletedMessageDto> {
    return this.deleteMessage.execute(q);
  }
}
