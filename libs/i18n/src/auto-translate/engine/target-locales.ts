import type { Locale } from '../../locales/domain/locale.entity';
import { languageTag } from '../../locales/domain/language-tag';
import type { TargetLocale } from '../auto-translate.ports';

/**
 * Locale codes as translation targets: the language tag of the registry's locale with that code
 * (its `language`, else the alias table), and for a code the registry does not know, the code's
 * own canonical form.
 */
export function targetLocales(codes: readonly string[], registry: readonly Pick<Locale, 'code' | 'language'>[]): TargetLocale[] {
  const byCode = new Map(registry.map((l) => [l.code, l]));
  const seen = new Set<string>();
  const out: TargetLocale[] = [];
  for (const code of codes) {
    if (seen.has(code)) continue;
    seen.add(code);
    out.push({ code, language: languageTag(byCode.get(code) ?? { code }) });
  }
  return out;
}
