import { Inject, Injectable } from '@nestjs/common';
import type { CellWrite } from '../domain/translation-row.entity';
import { presentRow } from '../domain/translation.presenter';
import type { TranslationRowViewDto, UpsertTranslationRowDto } from '../dto/translation-row.dto';
import { WriteTranslationUseCase } from './write-translation.use-case';

/**
 * `POST /admin/i18n/translations`: upserts the locales the body names and leaves the others (an
 * empty text removes one). The admin console sends the whole row, so only locales whose text changed
 * are written and marked `human` (automatic translation rule 2); `context` sets the translator note.
 */
@Injectable()
export class UpsertTranslationRowUseCase {
  constructor(@Inject(WriteTranslationUseCase) private readonly writer: WriteTranslationUseCase) {}

  async execute(dto: UpsertTranslationRowDto, by?: string): Promise<{ row: TranslationRowViewDto; created: boolean }> {
    const ns = dto.ns ?? '';
    const at = new Date().toISOString();
    const cells: CellWrite[] = Object.entries(dto.translations ?? {}).map(([locale, text]) =>
      text === '' ? { locale, value: null } : { locale, value: text, provenance: { source: 'human', at, ...(by ? { by } : {}) } },
    );
    const result = await this.writer.execute({
      ns,
      key: dto.key,
      cells,
      skipUnchanged: true,
      ensureRow: true,
      ...(dto.context !== undefined ? { context: dto.context } : {}),
    });
    return { row: presentRow(result.row!), created: result.created };
  }
}
