import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { Tokenizer } from 'htmlparser2';
import type { GlossaryEntry } from '../auto-translate.ports';

/**
 * The format signature of a source text (automatic translation rule 10): what a translation must
 * carry over unchanged for the text to keep working where it is shown. A candidate that breaks it is
 * re-requested once with the reason named, then left out so the source keeps showing.
 */
export interface FormatSignature {
  /** Go-template fields (`{{ .Name }}`, `{{ if .X }}`), normalised, with their counts. */
  templateFields: Map<string, number>;
  /** Settings tokens (`[[ site.name ]]`) with their counts. */
  settingsTokens: Map<string, number>;
  /** Whether the text (Go-template fields masked) parses as an ICU message. */
  icu: boolean;
  /** ICU argument names (`{count}`, `{n, number}`, plural and select arguments); brace placeholders when the text is not ICU. */
  placeholders: Set<string>;
  /** Plural and select arguments, in document order, with their branch keys. */
  branches: BranchSet[];
  /** HTML tags: name to explicit opening and closing counts (void and self-closing tags count as openings). */
  tags: Map<string, TagCount>;
  /** HTML tags: name to the attributes of each opening, in document order. */
  attributes: Map<string, TagAttributes[]>;
  /** Do-not-translate glossary terms found in the text, with their counts. */
  keepTerms: Map<string, number>;
}

export interface BranchSet {
  /** The argument (`count`). */
  name: string;
  kind: 'plural' | 'selectordinal' | 'select';
  keys: string[];
}

export interface TagCount {
  open: number;
  close: number;
}

/**
 * The attributes of one opening tag, sorted by name: name to value (`undefined` for a value that is
 * text a reader sees, `alt` or `title`, which a translation translates), and `key`, the comparable form.
 */
export interface TagAttributes {
  attrs: [string, string | undefined][];
  key: string;
}

/** Attributes whose value is prose shown to the reader: a translation changes it, so only its presence is kept. */
const TRANSLATABLE_ATTRIBUTES = new Set(['alt', 'title', 'placeholder', 'label', 'aria-label', 'aria-description', 'aria-roledescription', 'aria-valuetext', 'aria-placeholder']);

/** Go-template actions: `{{ .Name }}`, `{{- if .X -}}`. */
export const TEMPLATE_FIELD = /\{\{[\s\S]*?\}\}/g;
/** Settings tokens expanded after interpolation (`[[ module.key ]]`). */
export const SETTINGS_TOKEN = /\[\[[\s\S]*?\]\]/g;
/** A brace placeholder of a text that is not ICU: `{name}`. */
const BRACE_PLACEHOLDER = /\{\s*([^{}\s,]+)\s*(?:,[^{}]*)?\}/g;
/** Stands in for a Go-template action while the rest is parsed as ICU (a private-use character). */
const MASK = '\uE000';

function countMatches(text: string, pattern: RegExp, normalise: (m: string) => string = (m) => m): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(pattern.source, 'g'))) {
    const k = normalise(m[0]);
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

const normaliseTemplate = (field: string): string => field.replace(/^\{\{-?\s*/, '{{ ').replace(/\s*-?\}\}$/, ' }}').replace(/\s+/g, ' ');
const normaliseToken = (token: string): string => token.replace(/\s+/g, '');

/** The ICU elements of `text` (Go-template actions masked, tags left as text), or undefined when it is not ICU. */
export function parseIcu(text: string, options: { captureLocation?: boolean } = {}): MessageFormatElement[] | undefined {
  if (!text.includes('{')) return undefined;
  try {
    return parse(text.replace(TEMPLATE_FIELD, (m) => MASK.repeat(m.length)), { ignoreTag: true, requiresOtherClause: true, captureLocation: options.captureLocation });
  } catch {
    return undefined;
  }
}

function walkIcu(elements: readonly MessageFormatElement[], placeholders: Set<string>, branches: BranchSet[]): void {
  for (const el of elements) {
    switch (el.type) {
      case TYPE.argument:
      case TYPE.number:
      case TYPE.date:
      case TYPE.time:
        placeholders.add(el.value);
        break;
      case TYPE.plural:
      case TYPE.select: {
        placeholders.add(el.value);
        const kind = el.type === TYPE.select ? 'select' : el.pluralType === 'ordinal' ? 'selectordinal' : 'plural';
        branches.push({ name: el.value, kind, keys: Object.keys(el.options) });
        for (const option of Object.values(el.options)) walkIcu(option.value, placeholders, branches);
        break;
      }
      case TYPE.tag:
        walkIcu(el.children, placeholders, branches);
        break;
      default:
        break;
    }
  }
}

/**
 * Opening and closing tags of `text` and the attributes of each opening, read by htmlparser2's
 * tokenizer: every tag written counts, also a stray closing tag no element matches (which a tree
 * builder would drop silently). Attribute values are read from `text` itself, Go-template actions
 * in them included (`href="{{ .Url }}"`).
 */
function scanTags(text: string): { tags: Map<string, TagCount>; attributes: Map<string, TagAttributes[]> } {
  const tags = new Map<string, TagCount>();
  const attributes = new Map<string, TagAttributes[]>();
  if (!text.includes('<')) return { tags, attributes };
  const input = text.replace(TEMPLATE_FIELD, (m) => ' '.repeat(m.length));
  const at = (name: string): TagCount => {
    let c = tags.get(name);
    if (!c) tags.set(name, (c = { open: 0, close: 0 }));
    return c;
  };
  let element: { name: string; attrs: [string, string | undefined][] } | undefined;
  let attr: { name: string; value: string } | undefined;
  const finish = () => {
    if (!element) return;
    const attrs = element.attrs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const key = attrs.map(([n, v]) => (v === undefined ? n : `${n}=${JSON.stringify(v)}`)).join(' ');
    const list = attributes.get(element.name) ?? [];
    list.push({ attrs, key });
    attributes.set(element.name, list);
    element = undefined;
  };
  const noop = () => undefined;
  const tokenizer = new Tokenizer(
    { decodeEntities: false, xmlMode: false },
    {
      onopentagname: (start, end) => {
        finish();
        element = { name: input.slice(start, end).toLowerCase(), attrs: [] };
        at(element.name).open++;
      },
      onclosetag: (start, end) => void at(input.slice(start, end).toLowerCase()).close++,
      onattribname: (start, end) => void (attr = { name: input.slice(start, end).toLowerCase(), value: '' }),
      onattribdata: (start, end) => void (attr && (attr.value += text.slice(start, end))),
      onattribend: () => {
        // Template actions compare as the field check compares them: `{{.Url}}` is `{{ .Url }}`.
        if (attr && element) element.attrs.push([attr.name, TRANSLATABLE_ATTRIBUTES.has(attr.name) ? undefined : attr.value.replace(TEMPLATE_FIELD, normaliseTemplate)]);
        attr = undefined;
      },
      onopentagend: finish,
      onselfclosingtag: finish,
      onattribentity: noop,
      oncdata: noop,
      oncomment: noop,
      ondeclaration: noop,
      onend: noop,
      onprocessinginstruction: noop,
      ontext: noop,
      ontextentity: noop,
    },
  );
  tokenizer.write(input);
  tokenizer.end();
  finish();
  return { tags, attributes };
}

/** Opening and closing tags of `text` by name (see `scanTags`). */
export function countTags(text: string): Map<string, TagCount> {
  return scanTags(text).tags;
}

/**
 * Why the attributes of `<name>` openings differ between source and candidate, or undefined when
 * every opening of the source has its match (in any order: a translation may reorder links).
 */
function attributeProblem(name: string, want: readonly TagAttributes[], got: readonly TagAttributes[]): string | undefined {
  const left = [...got];
  const unmatched: TagAttributes[] = [];
  for (const w of want) {
    const i = left.findIndex((g) => g.key === w.key);
    if (i >= 0) left.splice(i, 1);
    else unmatched.push(w);
  }
  const w = unmatched[0];
  if (!w) return undefined;
  // The opening most like it: the one that keeps most of its attributes.
  const shared = (g: TagAttributes) => g.attrs.filter(([n, v]) => w.attrs.some(([wn, wv]) => wn === n && wv === v)).length;
  const g = [...left].sort((a, b) => shared(b) - shared(a))[0];
  if (!g) return `attributes of <${name}> changed`;
  for (const [n, v] of w.attrs) {
    const match = g.attrs.find(([gn]) => gn === n);
    if (!match) return `attribute ${n} of <${name}> missing`;
    if (match[1] !== v) return `attribute ${n} of <${name}> changed from ${JSON.stringify(v)} to ${JSON.stringify(match[1])}`;
  }
  for (const [n] of g.attrs) if (!w.attrs.some(([wn]) => wn === n)) return `unexpected attribute ${n} on <${name}>`;
  return `attributes of <${name}> changed`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Do-not-translate terms of a glossary (every locale's and, when `locale` is given, that locale's). */
export function keepTermsOf(glossary: readonly GlossaryEntry[] = [], locale?: string): string[] {
  const terms = glossary.filter((g) => g.doNotTranslate && g.term.trim() && (!g.locale || !locale || g.locale === locale)).map((g) => g.term.trim());
  // Longest first, so a term containing another is matched whole.
  return [...new Set(terms)].sort((a, b) => b.length - a.length);
}

/** A pattern matching any of `terms` as whole words (case-sensitive: a brand's spelling is the point). */
export function termPattern(terms: readonly string[]): RegExp | undefined {
  if (!terms.length) return undefined;
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${terms.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`, 'gu');
}

/** The signature of `source`; `glossary` names the do-not-translate terms to enforce. */
export function signature(source: string, glossary: readonly GlossaryEntry[] = []): FormatSignature {
  const placeholders = new Set<string>();
  const branches: BranchSet[] = [];
  const icu = parseIcu(source);
  if (icu) walkIcu(icu, placeholders, branches);
  else for (const m of source.replace(TEMPLATE_FIELD, ' ').matchAll(BRACE_PLACEHOLDER)) placeholders.add(m[1]);
  const keepTerms = new Map<string, number>();
  const pattern = termPattern(keepTermsOf(glossary));
  if (pattern) for (const m of source.matchAll(pattern)) keepTerms.set(m[0], (keepTerms.get(m[0]) ?? 0) + 1);
  const { tags, attributes } = scanTags(source);
  return {
    templateFields: countMatches(source, TEMPLATE_FIELD, normaliseTemplate),
    settingsTokens: countMatches(source, SETTINGS_TOKEN, normaliseToken),
    icu: icu !== undefined,
    placeholders,
    branches,
    tags,
    attributes,
    keepTerms,
  };
}

interface LanguagePlurals {
  /** Every category of the language (`Intl.PluralRules(...).resolvedOptions().pluralCategories`). */
  all: Set<string>;
  /**
   * The categories a translation must write: those a whole count selects, and `other`. Categories
   * only fractions or millions select (Czech and Lithuanian `many`, French `many` for 1000000) may be
   * left to `other`, which ICU falls back to, as translators commonly do.
   */
  required: string[];
}

const PLURALS = new Map<string, LanguagePlurals | null>();
/** CLDR's order of plural categories, in which reasons name them. */
const CATEGORY_ORDER = ['zero', 'one', 'two', 'few', 'many', 'other'];
/** Counts sampled for the required categories: every CLDR cardinal and ordinal rule repeats below 1000. */
const SAMPLED_COUNTS = 1000;

/** Plural categories of a language (`Intl.PluralRules`), or undefined for a tag the runtime does not know. */
export function pluralCategories(language: string | undefined, kind: 'plural' | 'selectordinal'): LanguagePlurals | undefined {
  if (!language) return undefined;
  const id = `${kind}:${language}`;
  let known = PLURALS.get(id);
  if (known === undefined) {
    try {
      // A tag the runtime has no rules for would silently get the default locale's (English) categories.
      if (!Intl.PluralRules.supportedLocalesOf([language]).length) throw new RangeError(`no plural rules for ${language}`);
      const rules = new Intl.PluralRules(language, { type: kind === 'plural' ? 'cardinal' : 'ordinal' });
      const all = new Set<string>(rules.resolvedOptions().pluralCategories);
      const hit = new Set<string>(['other']);
      for (let n = 0; n < SAMPLED_COUNTS; n++) hit.add(rules.select(n));
      known = { all, required: CATEGORY_ORDER.filter((c) => all.has(c) && hit.has(c)) };
    } catch {
      known = null;
    }
    PLURALS.set(id, known);
  }
  return known ?? undefined;
}

export interface ValidateOptions {
  /**
   * BCP 47 tag of the candidate's language: plural categories it lacks (Japanese has no `one`) need
   * not be kept, and those it needs (Polish `few` and `many`) must be written.
   */
  language?: string;
  /** Needed when `source` is a text rather than a signature. */
  glossary?: readonly GlossaryEntry[];
}

/**
 * Why `candidate` breaks the signature of `source` ("dropped closing </b>", "placeholder {count}
 * missing", "plural branch 'one' missing", "do-not-translate term 'Flowplane' changed"), or
 * undefined when it keeps it.
 */
export function validate(source: string | FormatSignature, candidate: string, options: ValidateOptions = {}): string | undefined {
  const sig = typeof source === 'string' ? signature(source, options.glossary) : source;
  if (!candidate.trim()) return 'empty translation';

  const fields = countMatches(candidate, TEMPLATE_FIELD, normaliseTemplate);
  for (const [field, n] of sig.templateFields) {
    const got = fields.get(field) ?? 0;
    if (got < n) return `template field ${field} missing`;
    if (got > n) return `template field ${field} repeated`;
  }
  for (const field of fields.keys()) if (!sig.templateFields.has(field)) return `unexpected template field ${field}`;

  const tokens = countMatches(candidate, SETTINGS_TOKEN, normaliseToken);
  for (const [token, n] of sig.settingsTokens) if ((tokens.get(token) ?? 0) < n) return `settings token ${token} missing`;

  const placeholders = new Set<string>();
  const branches: BranchSet[] = [];
  if (sig.icu) {
    const icu = candidate.includes('{') ? parseIcu(candidate) : [];
    if (!icu) return 'ICU message syntax broken (unbalanced braces or a missing other branch)';
    walkIcu(icu, placeholders, branches);
  } else {
    for (const m of candidate.replace(TEMPLATE_FIELD, ' ').matchAll(BRACE_PLACEHOLDER)) placeholders.add(m[1]);
  }
  for (const name of sig.placeholders) if (!placeholders.has(name)) return `placeholder {${name}} missing`;
  for (const name of placeholders) if (!sig.placeholders.has(name)) return `unexpected placeholder {${name}}`;

  for (const expected of sig.branches) {
    const got = branches.find((b) => b.name === expected.name && b.kind === expected.kind);
    if (!got) return `${expected.kind} argument {${expected.name}} missing`;
    const categories = expected.kind === 'select' ? undefined : pluralCategories(options.language, expected.kind);
    for (const key of expected.keys) {
      // A plural category the target language does not have may go (Japanese has no `one`); exact
      // matches (`=0`), `other` and every select value must stay.
      if (categories && !key.startsWith('=') && key !== 'other' && !categories.all.has(key)) continue;
      if (!got.keys.includes(key)) return `${expected.kind === 'select' ? 'select' : 'plural'} branch '${key}' missing`;
    }
    if (categories) {
      const lacking = categories.required.find((c) => !got.keys.includes(c));
      if (lacking) return `plural branch '${lacking}' missing (${options.language} needs ${categories.required.join(', ')})`;
    }
  }

  const { tags, attributes } = scanTags(candidate);
  for (const [name, want] of sig.tags) {
    const got = tags.get(name) ?? { open: 0, close: 0 };
    if (got.close < want.close) return `dropped closing </${name}>`;
    if (got.open < want.open) return `dropped <${name}>`;
    if (got.close > want.close) return `extra closing </${name}>`;
    if (got.open > want.open) return `extra <${name}>`;
  }
  for (const name of tags.keys()) if (!sig.tags.has(name)) return `unexpected tag <${name}>`;
  for (const [name, want] of sig.attributes) {
    const problem = attributeProblem(name, want, attributes.get(name) ?? []);
    if (problem) return problem;
  }

  for (const [term, n] of sig.keepTerms) {
    const pattern = termPattern([term])!;
    if ([...candidate.matchAll(pattern)].length < n) return `do-not-translate term '${term}' changed`;
  }
  return undefined;
}

/** Whether the source is an ICU plural or select message (translated one locale per call, rule 10). */
export function isIcuBranching(sig: FormatSignature): boolean {
  return sig.branches.length > 0;
}
