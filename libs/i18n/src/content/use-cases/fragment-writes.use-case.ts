import { Inject, Injectable } from '@nestjs/common';
import { I18nConfig } from '../../i18n.config';
import { ContentException } from '../content.exception';
import { type Fragment, FRAGMENT_KEY_MAX, FRAGMENT_KEY_PATTERN } from '../domain/content.entity';
import { presentFragment } from '../domain/content.presenter';
import { checkFragmentData, fragmentUnits, markersOf } from '../domain/fragment';
import { EMPTY_STATE, reconcileUnits, sourceHashOf, type TranslationState } from '../domain/translation-state';
import type { DeletedContentDto, FragmentViewDto, PutFragmentDto } from '../dto/content.dto';
import { ContentOutbox } from '../persistence/content.outbox';
import { ContentRepository } from '../persistence/content.repository';
import { ActiveLocales } from './active-locales';

/** 400 naming `key` unless it is a fragment key. */
export function checkFragmentKey(key: string): void {
  if (key.length > FRAGMENT_KEY_MAX || !FRAGMENT_KEY_PATTERN.test(key)) {
    throw ContentException.invalid([{ field: 'key', problems: [`key must be lowercase letters and digits in words joined by "-", "_" or "." (nav.main), at most ${FRAGMENT_KEY_MAX} characters`] }]);
  }
}

const localesOf = (data: unknown): string[] => [...new Set(markersOf(data).flatMap((m) => Object.keys(m.map)))];

/** What a fragment write stores, from the stored fragment (or none) and the request. */
export function nextFragment(key: string, existing: Fragment | null, dto: PutFragmentDto, sourceLocale: string, now: Date): { fragment: Fragment; sourceChanged: boolean } {
  const before = existing ? fragmentUnits(existing.data, sourceLocale) : undefined;
  const after = fragmentUnits(dto.data, sourceLocale);
  const prior: TranslationState = existing?.translation ?? { ...EMPTY_STATE, units: [] };
  const targets = [...new Set([...(existing ? localesOf(existing.data) : []), ...localesOf(dto.data)])].filter((l) => l !== sourceLocale);
  const translation: TranslationState = {
    ...prior,
    translationReady: dto.translationReady ?? prior.translationReady,
    reviewRequired: dto.reviewRequired ?? prior.reviewRequired,
    units: reconcileUnits(prior, after.units, { before: before?.texts ?? (() => undefined), after: after.texts }, targets),
  };
  const sourceChanged = !before || sourceHashOf(before.units) !== sourceHashOf(after.units);
  return { fragment: { key, data: dto.data, translation, createdAt: existing?.createdAt ?? now, updatedAt: now }, sourceChanged };
}

/** `PUT /admin/content/fragments/{key}`. */
@Injectable()
export class PutFragmentUseCase {
  constructor(
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(ContentOutbox) private readonly outbox: ContentOutbox,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(ActiveLocales) private readonly locales: ActiveLocales,
  ) {}

  async execute(key: string, dto: PutFragmentDto): Promise<{ view: FragmentViewDto; created: boolean }> {
    checkFragmentKey(key);
    const problem = checkFragmentData(dto.data);
    if (problem) throw problem.tooLarge ? ContentException.tooLarge(problem.details) : ContentException.invalid(problem.details);
    const { fragment, created } = await this.outbox.transaction(async (session) => {
      const existing = await this.repository.findFragment(key, session);
      const next = nextFragment(key, existing, dto, this.config.sourceLocale, new Date());
      await this.repository.saveFragment(next.fragment, session);
      await this.outbox.fragmentChanged(session, key, existing ? 'updated' : 'created', next.sourceChanged);
      return { fragment: next.fragment, created: !existing };
    });
    return { view: presentFragment(fragment, await this.locales.codes(), this.config.sourceLocale), created };
  }
}

/** `DELETE /admin/content/fragments/{key}`. */
@Injectable()
export class DeleteFragmentUseCase {
  constructor(
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(ContentOutbox) private readonly outbox: ContentOutbox,
  ) {}

  async execute(key: string): Promise<DeletedContentDto> {
    const deleted = await this.outbox.transaction(async (session) => {
      if (!(await this.repository.deleteFragment(key, session))) return false;
      await this.outbox.fragmentChanged(session, key, 'deleted', true);
      return true;
    });
    if (!deleted) throw ContentException.fragmentNotFound(key);
    return { deleted: true };
  }
}
