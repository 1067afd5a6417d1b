import { Inject, Injectable } from '@nestjs/common';
import { messageOf, presentMessage } from '../domain/translation.presenter';
import type { MessageViewDto, PutMessageDto } from '../dto/message.dto';
import { WriteTranslationUseCase } from './write-translation.use-case';

/**
 * `PUT /admin/i18n/messages`: creates or updates one (ns, key, locale) cell with provenance `human`;
 * announces `i18n.updated`, and `i18n.keys_changed` for a new key or changed source-language text.
 */
@Injectable()
export class PutMessageUseCase {
  constructor(@Inject(WriteTranslationUseCase) private readonly writer: WriteTranslationUseCase) {}

  async execute(dto: PutMessageDto, by?: string): Promise<{ message: MessageViewDto; created: boolean }> {
    const ns = dto.ns ?? '';
    const { row, changed } = await this.writer.execute({
      ns,
      key: dto.key,
      cells: [{ locale: dto.locale, value: dto.value, provenance: { source: 'human', at: new Date().toISOString(), ...(by ? { by } : {}) } }],
    });
    const message = messageOf(row!, dto.locale)!;
    const created = changed.includes(dto.locale) && message.createdAt.getTime() === message.updatedAt.getTime();
    return { message: presentMessage(message), created };
  }
}
