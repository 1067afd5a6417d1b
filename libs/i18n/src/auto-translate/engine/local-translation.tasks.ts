import type { ChatMessage, LocalTask } from '@flowplane/llm';
import { TEMPLATE_FIELD, SETTINGS_TOKEN, termPattern, validate } from './format-signature';
import { pseudoLocalize } from './pseudo-localize';
import { parseJsonObject, REVIEW_TASK_MARKER, type ReviewPayload, TRANSLATE_TASK_MARKER, type TranslatePayload } from './translation-prompts';

function lastUser(messages: readonly ChatMessage[]): string {
  return [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

/**
 * The offline translator of the `local` provider: pseudo-localizes the text for every target
 * (see `pseudoLocalize`). Not a translation; it lets every translation flow run and be seen
 * working without a model.
 */
export const LOCAL_TRANSLATE_TASK: LocalTask = {
  marker: TRANSLATE_TASK_MARKER,
  answer(messages) {
    const payload = parseJsonObject(lastUser(messages)) as Partial<TranslatePayload> | undefined;
    if (!payload || typeof payload.text !== 'string' || !Array.isArray(payload.targets)) return '{}';
    const keep = Array.isArray(payload.do_not_translate) ? payload.do_not_translate.filter((t): t is string => typeof t === 'string') : [];
    const out: Record<string, string> = {};
    for (const target of payload.targets) if (target && typeof target.locale === 'string') out[target.locale] = pseudoLocalize(payload.text, target.locale, keep, typeof target.language === 'string' ? target.language : undefined);
    return JSON.stringify(out);
  },
};

/** Whether `text` has anything to translate: letters outside placeholders, tags, tokens and kept terms. */
function hasTranslatableText(text: string, keep: readonly string[]): boolean {
  let rest = text.replace(TEMPLATE_FIELD, ' ').replace(SETTINGS_TOKEN, ' ').replace(/<[^<>]*>/g, ' ').replace(/\{[^{}]*\}/g, ' ');
  const terms = termPattern(keep);
  if (terms) rest = rest.replace(terms, ' ');
  return /\p{L}{2,}/u.test(rest);
}

/**
 * The offline reviewer of the `local` provider: judges by the format signature alone (a broken
 * placeholder, tag or plural branch) and refuses a copy of the source as untranslated. It never
 * suggests text.
 */
export const LOCAL_REVIEW_TASK: LocalTask = {
  marker: REVIEW_TASK_MARKER,
  answer(messages) {
    const payload = parseJsonObject(lastUser(messages)) as Partial<ReviewPayload> | undefined;
    if (!payload || typeof payload.source !== 'string' || !payload.candidates || typeof payload.candidates !== 'object') return '{}';
    const keep = Array.isArray(payload.do_not_translate) ? payload.do_not_translate.filter((t): t is string => typeof t === 'string') : [];
    const glossary = keep.map((term) => ({ term, doNotTranslate: true }));
    const out: Record<string, { ok: boolean; reason?: string }> = {};
    for (const [locale, candidate] of Object.entries(payload.candidates)) {
      if (typeof candidate !== 'string') continue;
      const broken = validate(payload.source, candidate, { glossary, language: payload.languages?.[locale] });
      if (broken) out[locale] = { ok: false, reason: broken };
      else if (candidate.trim() === payload.source.trim() && hasTranslatableText(payload.source, keep)) out[locale] = { ok: false, reason: 'untranslated' };
      else out[locale] = { ok: true };
    }
    return JSON.stringify(out);
  },
};

/** Both offline tasks, for `createProviderRegistry({ localTasks })`. */
export const LOCAL_TRANSLATION_TASKS: readonly LocalTask[] = [LOCAL_TRANSLATE_TASK, LOCAL_REVIEW_TASK];
