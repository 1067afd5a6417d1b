import { PLURAL_CATEGORIES, type PluralCategory } from './icu-plural';

/** The gettext plural forms of a language: the CLDR category of each msgstr index, and the header. */
export interface PluralForms {
  categories: PluralCategory[];
  /** The C expression of the `Plural-Forms` header's `plural=`. */
  expression: string;
}

const ONE_OTHER: PluralForms = { categories: ['one', 'other'], expression: '(n != 1)' };
const ZERO_ONE_OTHER: PluralForms = { categories: ['one', 'other'], expression: '(n > 1)' };
const EAST_SLAVIC: PluralForms = {
  categories: ['one', 'few', 'many', 'other'],
  expression: '(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2)',
};

/**
 * gettext forms per language, indexed in CLDR order so each index is one ICU category. Where CLDR
 * has a category integers never reach (the `other` of Polish or Russian, for fractions), it keeps
 * an index of its own that the expression never selects, so an ICU message round-trips whole.
 * `plural-forms.spec.ts` checks every expression against Intl.PluralRules.
 */
const TABLE: Record<string, PluralForms> = {
  fr: ZERO_ONE_OTHER,
  pt: ZERO_ONE_OTHER,
  'pt-pt': ONE_OTHER,
  // CLDR gives these a `many` for round millions only; gettext and translators use two forms.
  es: ONE_OTHER,
  it: ONE_OTHER,
  ca: ONE_OTHER,
  pl: {
    categories: ['one', 'few', 'many', 'other'],
    expression: '(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2)',
  },
  ru: EAST_SLAVIC,
  uk: EAST_SLAVIC,
  be: EAST_SLAVIC,
  cs: { categories: ['one', 'few', 'many', 'other'], expression: '(n==1 ? 0 : n>=2 && n<=4 ? 1 : 3)' },
  sk: { categories: ['one', 'few', 'many', 'other'], expression: '(n==1 ? 0 : n>=2 && n<=4 ? 1 : 3)' },
  hr: { categories: ['one', 'few', 'other'], expression: '(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2)' },
  sr: { categories: ['one', 'few', 'other'], expression: '(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2)' },
  bs: { categories: ['one', 'few', 'other'], expression: '(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2)' },
  lt: {
    categories: ['one', 'few', 'many', 'other'],
    expression: '(n%10==1 && (n%100<11 || n%100>19) ? 0 : n%10>=2 && (n%100<11 || n%100>19) ? 1 : 3)',
  },
  lv: { categories: ['zero', 'one', 'other'], expression: '(n%10==0 || (n%100>=11 && n%100<=19) ? 0 : n%10==1 && n%100!=11 ? 1 : 2)' },
  ro: { categories: ['one', 'few', 'other'], expression: '(n==1 ? 0 : n==0 || (n%100>=1 && n%100<=19) ? 1 : 2)' },
  sl: { categories: ['one', 'two', 'few', 'other'], expression: '(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3)' },
  ar: {
    categories: ['zero', 'one', 'two', 'few', 'many', 'other'],
    expression: '(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5)',
  },
  he: { categories: ['one', 'two', 'other'], expression: '(n==1 ? 0 : n==2 ? 1 : 2)' },
  is: { categories: ['one', 'other'], expression: '(n%10!=1 || n%100==11)' },
  mk: { categories: ['one', 'other'], expression: '(n%10!=1 || n%100==11)' },
};

/** Integers sampled to tell which gettext index each CLDR category falls on. */
const SAMPLES = Array.from({ length: 201 }, (_, n) => n);

function language(locale: string): string {
  return locale.split(/[-_]/)[0].toLowerCase();
}

function cldrCategories(locale: string): PluralCategory[] {
  let found: string[];
  try {
    found = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
  } catch {
    found = ['one', 'other'];
  }
  return PLURAL_CATEGORIES.filter((c) => found.includes(c));
}

function select(locale: string): (n: number) => string {
  try {
    const rules = new Intl.PluralRules(locale);
    return (n) => rules.select(n);
  } catch {
    return (n) => (n === 1 ? 'one' : 'other');
  }
}

/**
 * The forms an export writes for a locale: the table, else derived from CLDR when the language
 * has only `other`, or `one` for exactly 1 (or for 0 and 1). Other languages get null: their
 * plural messages stay ICU text in msgstr, which Weblate and Crowdin show as such.
 */
export function pluralFormsFor(locale: string): PluralForms | null {
  const known = TABLE[locale.toLowerCase().replace('_', '-')] ?? TABLE[language(locale)];
  if (known) return known;
  const categories = cldrCategories(locale);
  if (categories.length === 1) return { categories: ['other'], expression: '0' };
  if (categories.length === 2 && categories[0] === 'one') {
    const pick = select(locale);
    const ones = SAMPLES.filter((n) => pick(n) === 'one');
    if (ones.length === 1 && ones[0] === 1) return ONE_OTHER;
    if (ones.length === 2 && ones[0] === 0 && ones[1] === 1) return ZERO_ONE_OTHER;
  }
  return null;
}

/** `nplurals=N; plural=EXPR;` of a set of forms. */
export function pluralFormsHeader(forms: PluralForms): string {
  return `nplurals=${forms.categories.length}; plural=${forms.expression};`;
}

/** Only numbers, `n` and C operators: no identifiers, calls or property access can reach the evaluator. */
const SAFE_EXPRESSION = /^[\sn0-9()?:<>=!&|%+\-*/]{1,500}$/;

/** Compiles a `plural=` expression of a gettext header, or null when it is not a plain C expression. */
export function compilePluralExpression(expression: string): ((n: number) => number) | null {
  if (!SAFE_EXPRESSION.test(expression)) return null;
  try {
    // Safe: SAFE_EXPRESSION admits only n, digits and operators.
    const fn = new Function('n', `return +(${expression});`) as (n: number) => number;
    fn(1);
    return fn;
  } catch {
    return null;
  }
}

/**
 * The CLDR category of each msgstr index of a file, read from its `Plural-Forms` header: each
 * index takes the category of the integers the expression sends there; indices no integer reaches
 * take the categories still unmatched, in CLDR order. Without a usable header, the export's forms.
 */
export function categoriesOfHeader(header: string | undefined, locale: string): PluralCategory[] | null {
  const parsed = /nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*([^;]+);?/.exec(header ?? '');
  const fn = parsed ? compilePluralExpression(parsed[2]) : null;
  if (!parsed || !fn) return pluralFormsFor(locale)?.categories ?? null;
  const count = Number(parsed[1]);
  if (count < 1 || count > 6) return null;
  const pick = select(locale);
  const byIndex: (PluralCategory | undefined)[] = Array.from({ length: count }, () => undefined);
  for (const n of SAMPLES) {
    const index = fn(n);
    if (Number.isInteger(index) && index >= 0 && index < count && byIndex[index] === undefined) {
      byIndex[index] = pick(n) as PluralCategory;
    }
  }
  const free = cldrCategories(locale).filter((c) => !byIndex.includes(c));
  return byIndex.map((c) => c ?? free.shift() ?? 'other');
}
