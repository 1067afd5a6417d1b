import { Inject, Injectable } from '@nestjs/common';
import { type GlossaryEntry, GlossarySource } from '../auto-translate.ports';
import { GlossaryRepository } from './glossary.repository';

/** The glossary the engine injects into prompts and checks candidates against: the stored list. */
@Injectable()
export class StoredGlossaryService extends GlossarySource {
  constructor(@Inject(GlossaryRepository) private readonly repository: GlossaryRepository) {
    super();
  }

  entries(): Promise<readonly GlossaryEntry[]> {
    return this.repository.read();
  }

  /** Replaces the whole list (`PUT /admin/i18n/glossary`). */
  replace(entries: readonly GlossaryEntry[]): Promise<GlossaryEntry[]> {
    return this.repository.replace(entries, new Date());
  }
}
