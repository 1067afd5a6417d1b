import { isoOrNull } from '../../shared/stored-time';
import type { FragmentViewDto, PageViewDto, TranslationStateDto } from '../dto/content.dto';
import { type Fragment, type Page, pageUnits } from './content.entity';
import { fragmentUnits } from './fragment';
import { isStale, localeState, type SourceUnit, sourceHashOf, type TranslationState, type UnitTexts } from './translation-state';

/** The translation state as the admin routes show it, with the state of every active locale. */
export function presentState(
  state: TranslationState,
  source: { units: SourceUnit[]; texts: UnitTexts },
  activeLocales: readonly string[],
  sourceLocale: string,
): TranslationStateDto {
  const current = sourceHashOf(source.units);
  const targets = activeLocales.filter((l) => l !== sourceLocale);
  const locales: Record<string, string> = {};
  for (const l of activeLocales) locales[l] = localeState(state, source.units, source.texts, l, sourceLocale, targets);
  return {
    translationReady: state.translationReady,
    sourceHash: state.sourceHash ?? null,
    currentSourceHash: current,
    stale: isStale(state, current),
    retranslate: state.retranslate,
    units: state.units ?? null,
    reviewRequired: state.reviewRequired,
    pending: state.pending,
    locales,
  };
}

export function presentPage(p: Page, activeLocales: readonly string[], sourceLocale: string): PageViewDto {
  return {
    slug: p.slug,
    title: { ...p.title },
    body: { ...p.body },
    seo: { ...(p.seo.title ? { title: { ...p.seo.title } } : {}), ...(p.seo.description ? { description: { ...p.seo.description } } : {}) },
    translation: presentState(p.translation, pageUnits(p, sourceLocale), activeLocales, sourceLocale),
    ...(p.seeded ? { seededFrom: p.seeded.template } : {}),
    createdAt: isoOrNull(p.createdAt),
    updatedAt: isoOrNull(p.updatedAt),
  };
}

export function presentFragment(f: Fragment, activeLocales: readonly string[], sourceLocale: string): FragmentViewDto {
  return {
    key: f.key,
    data: f.data,
    translation: presentState(f.translation, fragmentUnits(f.data, sourceLocale), activeLocales, sourceLocale),
    createdAt: isoOrNull(f.createdAt),
    updatedAt: isoOrNull(f.updatedAt),
  };
}
