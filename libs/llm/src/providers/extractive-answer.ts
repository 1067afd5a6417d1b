import { type Excerpt, forbidsMarkers } from '../excerpts';

/**
 * The `local` provider's answer to a question over retrieved excerpts: it quotes, unchanged, the
 * excerpt sentence sharing the most words with the question (case, punctuation, diacritics and a
 * small stop-word list per language folded away; words compared on their first five letters, so
 * "returns" meets "returned" and "zwrotu" meets "zwrot"), cites its `[N]` unless the prompt forbids
 * markers, and frames it in the question's language when the prompt asks for the user's language.
 * Deterministic: ties go to the higher-ranked excerpt, then the earlier sentence. It is retrieval
 * made visible, not a model's answer.
 */

/** Languages the framing words exist in. */
export type AnswerLanguage = 'en' | 'pl' | 'de' | 'fr' | 'es';
export const ANSWER_LANGUAGES: readonly AnswerLanguage[] = ['en', 'pl', 'de', 'fr', 'es'];

const STOP_WORDS: Record<AnswerLanguage, string> = {
  en: 'a an the is are was were be been am do does did how what when where which who whom why can could would should will shall may might i you he she it we they me my your our their its to of in on at by for from with and or not no this that these those there here have has had much many long please about any some me us',
  pl: 'a i w we na z ze do od o u za po dla przez jak co czy ile jest sa byl to ten ta te nie sie mozna moge mam kiedy gdzie dlaczego jaki jaka jakie jakim ktory ktora ktore mi mnie moj moja moje twoj pan pani prosze juz tak',
  de: 'der die das den dem des ein eine einen einem einer und oder ist sind war wie was wann wo warum wer welche welcher welches ich sie du er es wir ihr mein meine dein ihre mit nach zu auf fur von bei aus nicht kein kann konnen muss bitte gibt es lange',
  fr: 'le la les l un une des du de d et ou est sont etait que qui quoi quel quelle quels quelles comment quand ou pourquoi je j vous tu il elle nous ils mon ma mes votre vos ton ta tes pour dans en sur avec par pas ne se s y a puis peut',
  es: 'el la los las lo un una unos unas y o es son era que como cuando donde por para en con sin mi mis tu tus su sus se al del de cuanto cuanta cuantos cual cuales puedo puede hay tiene tienen no si me te nos favor',
};

const FOLD_LETTERS: Record<string, string> = { ł: 'l', ß: 'ss', œ: 'oe', æ: 'ae', ø: 'o' };

function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[łßœæø]/g, (c) => FOLD_LETTERS[c]);
}

function words(text: string): string[] {
  return fold(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

const STOPS: Record<AnswerLanguage, Set<string>> = Object.fromEntries(ANSWER_LANGUAGES.map((l) => [l, new Set(STOP_WORDS[l].split(' '))])) as Record<AnswerLanguage, Set<string>>;
const ALL_STOPS = new Set(ANSWER_LANGUAGES.flatMap((l) => [...STOPS[l]]));

/** Content words of `text` as comparison stems (first five letters). */
function stems(text: string): Set<string> {
  return new Set(words(text).filter((w) => !ALL_STOPS.has(w)).map((w) => w.slice(0, 5)));
}

// Letters that only (or mostly) one of the five languages writes.
const LETTERS: Record<AnswerLanguage, RegExp> = {
  en: /(?!)/,
  pl: /[ąćęłńśźż]/giu,
  de: /[äöüß]/giu,
  fr: /[àâçèêëîïôùûœ]/giu,
  es: /[ñ¿¡]/giu,
};

/** The language of `text` among en, pl, de, fr and es: stop words and letters counted; English on a tie. */
export function detectLanguage(text: string): AnswerLanguage {
  const ws = words(text);
  let best: AnswerLanguage = 'en';
  let bestScore = 0;
  for (const lang of ANSWER_LANGUAGES) {
    const score = ws.filter((w) => STOPS[lang].has(w)).length + 2 * (text.match(LETTERS[lang]) ?? []).length;
    if (score > bestScore) {
      best = lang;
      bestScore = score;
    }
  }
  return best;
}

/** Whether a prompt asks to answer in the user's language. */
export function asksForUsersLanguage(prompt: string): boolean {
  return /\b(?:language (?:of|used by) the (?:user|question|customer|visitor|message)|users?['’]s? language|language the (?:user|customer|visitor) (?:writes|wrote|uses|used|speaks)|same language as the (?:user|question|customer|message))\b/i.test(prompt);
}

const FRAMING: Record<AnswerLanguage, { found: string; none: string }> = {
  en: { found: 'From the excerpts:', none: 'The excerpts do not answer this question.' },
  pl: { found: 'Z fragmentów:', none: 'Fragmenty nie odpowiadają na to pytanie.' },
  de: { found: 'Aus den Auszügen:', none: 'Die Auszüge beantworten diese Frage nicht.' },
  fr: { found: 'D’après les extraits :', none: 'Les extraits ne répondent pas à cette question.' },
  es: { found: 'Según los fragmentos:', none: 'Los fragmentos no responden a esta pregunta.' },
};

/** The sentences of an excerpt: split after . ! ? … where the next sentence starts with a capital, digit or quote. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?…])\s+(?=[\p{Lu}\p{N}"'“«(¿¡])/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The best-matching sentence of `excerpts` for `question`, with its excerpt number; undefined when no sentence shares a word. */
export function bestSentence(question: string, excerpts: readonly Excerpt[]): { n: number; sentence: string; score: number } | undefined {
  const asked = stems(question);
  let best: { n: number; sentence: string; score: number } | undefined;
  for (const e of excerpts) {
    const titleBonus = [...stems(e.title)].filter((s) => asked.has(s)).length * 0.25;
    for (const sentence of sentencesOf(e.text)) {
      const own = stems(sentence);
      const overlap = [...own].filter((s) => asked.has(s)).length;
      if (overlap === 0) continue;
      // Prefer the sentence covering the question, then the dense one; the title only breaks ties.
      const score = overlap + overlap / (own.size + 1) + titleBonus;
      if (!best || score > best.score) best = { n: e.n, sentence, score };
    }
  }
  return best;
}

/** The extractive answer to `question` over `excerpts`, following the instructions of `systemPrompt`. */
export function extractiveAnswer(question: string, excerpts: readonly Excerpt[], systemPrompt: string): string {
  const lang = asksForUsersLanguage(systemPrompt) ? detectLanguage(question) : 'en';
  const best = bestSentence(question, excerpts);
  if (!best) return FRAMING[lang].none;
  const marker = forbidsMarkers(systemPrompt) ? '' : ` [${best.n}]`;
  return `${FRAMING[lang].found} "${best.sentence}"${marker}`;
}
