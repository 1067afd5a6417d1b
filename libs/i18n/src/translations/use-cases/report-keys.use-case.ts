import { Inject, Injectable } from '@nestjs/common';
import { I18nConfig } from '../../i18n.config';
import type { ReportKeysDto, ReportKeysResultDto } from '../dto/catalog.dto';
import { I18nOutbox } from '../persistence/i18n.outbox';
import { TranslationRepository } from '../persistence/translation.repository';
import { I18nInstance } from './instance-id';
import { WriteTranslationUseCase } from './write-translation.use-case';

interface MergedKey {
  key: string;
  text: string;
  modules: string[];
  context?: string;
}

/**
 * `POST /i18n/report-keys` (client conventions 4 to 6): a new key is stored with its text in the
 * source locale (provenance `code`); the text of an existing key is never touched (write-once, a
 * curated key stays as it is). A `context` is upserted on new and existing keys; modules accumulate
 * (idempotently) and never touch translations. New keys and changed notes publish `i18n.keys_changed`.
 */
@Injectable()
export class ReportKeysUseCase {
  constructor(
    @Inject(TranslationRepository) private readonly repository: TranslationRepository,
    @Inject(WriteTranslationUseCase) private readonly writer: WriteTranslationUseCase,
    @Inject(I18nOutbox) private readonly outbox: I18nOutbox,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(I18nInstance) private readonly instance: I18nInstance,
  ) {}

  async execute(dto: ReportKeysDto): Promise<ReportKeysResultDto> {
    const ns = dto.ns ?? '';
    const source = this.config.sourceLocale;
    const keys = merge(dto);
    const result: ReportKeysResultDto = { created: 0, existing: 0, contextUpdated: 0, modulesAdded: 0 };
    const created: string[] = [];
    const noteChanged: string[] = [];
    await this.outbox.transaction(async (session) => {
      const now = new Date();
      const at = now.toISOString();
      for (const k of keys) {
        const address = { ns, key: k.key };
        const inserted = await this.repository.insertIfAbsent(
          address,
          {
            translations: k.text ? { [source]: k.text } : {},
            provenance: k.text ? { [source]: { source: 'code', by: `report-keys:${k.modules[0]}`, at } } : {},
            ...(k.context ? { context: k.context } : {}),
            modules: k.modules,
          },
          now,
          session,
        );
        if (inserted) {
          result.created++;
          result.modulesAdded += k.modules.length;
          if (k.context) result.contextUpdated++;
          created.push(k.key);
          continue;
        }
        result.existing++;
        if (k.context !== undefined && (await this.repository.setContext(address, k.context || null, now, session))) {
          result.contextUpdated++;
          noteChanged.push(k.key);
        }
        result.modulesAdded += await this.repository.addModules(address, k.modules, session);
      }
      if (created.length) {
        await this.outbox.announceUpdated(session, { ns, locale: source, keys: created, all: false, instanceId: this.instance.id });
        await this.outbox.announceKeysChanged(session, ns, created, 'added');
      }
      if (noteChanged.length) await this.outbox.announceKeysChanged(session, ns, noteChanged, 'context_changed');
    });
    if (created.length) this.writer.notify(ns, [source]);
    return result;
  }
}

/** One entry per key: the first text, every module, the last note. */
function merge(dto: ReportKeysDto): MergedKey[] {
  const byKey = new Map<string, MergedKey>();
  for (const k of dto.keys) {
    const seen = byKey.get(k.key);
    if (!seen) {
      byKey.set(k.key, { key: k.key, text: k.text, modules: [k.module], ...(k.context !== undefined ? { context: k.context } : {}) });
      continue;
    }
    if (!seen.modules.includes(k.module)) seen.modules.push(k.module);
    if (k.context !== undefined) seen.context = k.context;
  }
  return [...byKey.values()];
}
