import type { ChatMessage } from '@flowplane/llm';
import type { GlossaryEntry, TargetLocale } from '../auto-translate.ports';
import { keepTermsOf } from './format-signature';

/** Marks the translation prompt: the `local` provider answers it with pseudo-localization. */
export const TRANSLATE_TASK_MARKER = '(task: flowplane-translate/1)';
/** Marks the review prompt: the `local` provider answers it by the format signature. */
export const REVIEW_TASK_MARKER = '(task: flowplane-review/1)';

/** What the user message of a translation call carries (JSON). */
export interface TranslatePayload {
  text: string;
  source_language: string;
  targets: Array<{ locale: string; language: string }>;
  note?: string;
  do_not_translate?: string[];
  glossary?: Array<{ term: string; locale: string; translation: string }>;
  /** Locale code to why the previous answer for it was refused. */
  previous_problems?: Record<string, string>;
}

/** What the user message of a review call carries (JSON). */
export interface ReviewPayload {
  source: string;
  source_language: string;
  note?: string;
  do_not_translate?: string[];
  /** Locale code to its language tag. */
  languages: Record<string, string>;
  candidates: Record<string, string>;
}

/** The translator hint: the deployment's domain (CONTENT_TRANSLATE_DOMAIN) before the key's note. */
export function translatorNote(domain: string | undefined, context: string | undefined, label: string | undefined): string | undefined {
  const note = context?.trim() || label?.trim() || undefined;
  const parts = [domain?.trim() ? `Domain: ${domain.trim()}.` : undefined, note].filter((p): p is string => !!p);
  return parts.length ? parts.join(' ') : undefined;
}

/** The system and user messages of one translation call. */
export function translateMessages(input: {
  text: string;
  sourceLanguage: string;
  targets: readonly TargetLocale[];
  note?: string;
  glossary: readonly GlossaryEntry[];
  problems?: Record<string, string>;
}): ChatMessage[] {
  const codes = input.targets.map((t) => t.code);
  const glossary = input.glossary
    .filter((g) => !g.doNotTranslate && g.translation?.trim() && (!g.locale || codes.includes(g.locale)))
    .map((g) => ({ term: g.term, locale: g.locale ?? '*', translation: g.translation!.trim() }));
  const keep = keepTermsOf(input.glossary);
  const payload: TranslatePayload = {
    text: input.text,
    source_language: input.sourceLanguage,
    targets: input.targets.map((t) => ({ locale: t.code, language: t.language })),
    ...(input.note ? { note: input.note } : {}),
    ...(keep.length ? { do_not_translate: keep } : {}),
    ...(glossary.length ? { glossary } : {}),
    ...(input.problems && Object.keys(input.problems).length ? { previous_problems: input.problems } : {}),
  };
  const system = [
    `You translate user-interface text of a software product. ${TRANSLATE_TASK_MARKER}`,
    'The user message is a JSON object: `text` in `source_language`, the `targets` (locale code and BCP 47 language), an optional translator `note`, `do_not_translate` terms and `glossary` renderings.',
    'Translate `text` into the language of every target. Honour the note for meaning, agreement, gender and plural forms; use the glossary renderings.',
    'Keep verbatim: {placeholders}, ICU argument names and keywords, `#`, plural and select branch keys (translate only the text inside branches and use the plural categories the target language needs, always keeping `other`), Go-template actions such as {{ .Name }}, settings tokens such as [[ site.name ]], HTML tags with their attributes, entities, URLs and every do-not-translate term.',
    payload.previous_problems ? 'Your previous answer for the locales in `previous_problems` was refused for the reason given there: fix exactly that.' : undefined,
    'Answer with one JSON object and nothing else, mapping each target locale code to its translation: {"<locale>": "<translation>"}.',
  ]
    .filter((l): l is string => !!l)
    .join('\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: JSON.stringify(payload) },
  ];
}

/** The system and user messages of one review call (every candidate of one key). */
export function reviewMessages(payload: ReviewPayload): ChatMessage[] {
  const system = [
    `You review machine translations of user-interface text for meaning. ${REVIEW_TASK_MARKER}`,
    'The user message is a JSON object: the `source` text in `source_language`, an optional translator `note`, and `candidates` (locale code to translation; `languages` gives each locale\'s BCP 47 tag).',
    'For each candidate decide whether its meaning matches the source given the note. Reject it only for: wrong sense, contradicts the note, wrong unit or number, a broken or missing placeholder, tag or plural branch, or text left untranslated. Do not judge style or word choice.',
    'Answer with one JSON object and nothing else, one entry per candidate locale: {"<locale>": {"ok": true}} or {"<locale>": {"ok": false, "reason": "<short reason>", "suggestion": "<corrected translation>"}}.',
  ].join('\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: JSON.stringify(payload) },
  ];
}

/**
 * The JSON object of a model answer: the whole answer, or the one inside a code fence, or the
 * outermost `{…}` of text around it. Undefined when there is none.
 */
export function parseJsonObject(answer: string): Record<string, unknown> | undefined {
  const candidates: string[] = [answer.trim()];
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(answer);
  if (fence) candidates.push(fence[1].trim());
  const first = answer.indexOf('{');
  const last = answer.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(answer.slice(first, last + 1));
  for (const text of candidates) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}
