import { Inject, Injectable } from '@nestjs/common';
import { I18nException } from '../../i18n.exception';
import type { DeletedMessageDto, DeleteMessageQueryDto } from '../dto/message.dto';
import { WriteTranslationUseCase } from './write-translation.use-case';

/** `DELETE /admin/i18n/messages`: removes one cell (404 when absent); announces `i18n.updated`, never `keys_changed`. */
@Injectable()
export class DeleteMessageUseCase {
  constructor(@Inject(WriteTranslationUseCase) private readonly writer: WriteTranslationUseCase) {}

  async execute(q: DeleteMessageQueryDto): Promise<DeletedMessageDto> {
    const ns = q.ns ?? '';
    if (!(await this.writer.deleteCell(ns, q.key, q.locale))) throw I18nException.messageNotFound(ns, q.key, q.locale);
    return { deleted: true, ns, key: q.key, locale: q.locale };
  }
}
