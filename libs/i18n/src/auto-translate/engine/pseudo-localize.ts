import { type MessageFormatElement, TYPE } from '@formatjs/icu-messageformat-parser';
import { parseIcu, pluralCategories, SETTINGS_TOKEN, TEMPLATE_FIELD, termPattern } from './format-signature';

/**
 * Offline pseudo-localization: what the `local` provider answers for a translation request, so every
 * translation flow works and can be seen working without a model. It is not a translation: letters
 * are accented, vowels doubled (text grows by about a third, as real translations from English
 * do), and a per-locale marker `[de]` is put in front. Everything a translation must keep stays
 * verbatim: ICU argument names, keywords, `#` and plural/select branch keys, brace placeholders,
 * Go-template actions, settings tokens, HTML tags with their attributes, entities and
 * do-not-translate terms. A plural gets the categories `language` needs that the source lacks (Polish
 * `few` and `many`), copied from its `other` branch, so the result passes the format check as a
 * real translation must. Deterministic: the same input always gives the same output.
 */
export function pseudoLocalize(text: string, locale: string, keepTerms: readonly string[] = [], language?: string): string {
  if (!text.trim()) return text;
  const icu = parseIcu(text, { captureLocation: true });
  const body = icu ? addPluralCategories(rewriteIcu(text, icu, keepTerms), language) : accentText(text, keepTerms);
  return `[${locale}] ${body}`;
}

/** The first plural, innermost first, that lacks a category `language` needs, with what to add after its `other` branch. */
function lackingPlural(text: string, elements: readonly MessageFormatElement[], language: string): { at: number; insert: string } | undefined {
  for (const el of elements) {
    if (el.type === TYPE.tag) {
      const inner = lackingPlural(text, el.children, language);
      if (inner) return inner;
    }
    if (el.type !== TYPE.plural && el.type !== TYPE.select) continue;
    for (const o of Object.values(el.options)) {
      const inner = lackingPlural(text, o.value, language);
      if (inner) return inner;
    }
    if (el.type !== TYPE.plural) continue;
    const other = el.options.other?.location;
    const categories = pluralCategories(language, el.pluralType === 'ordinal' ? 'selectordinal' : 'plural');
    const lacking = categories?.required.filter((c) => !(c in el.options)) ?? [];
    if (!other || !lacking.length) continue;
    const branch = text.slice(other.start.offset, other.end.offset);
    return { at: other.end.offset, insert: lacking.map((c) => ` ${c} ${branch}`).join('') };
  }
  return undefined;
}

function addPluralCategories(text: string, language: string | undefined): string {
  if (!language) return text;
  let out = text;
  // One plural per pass, innermost first, so a copied `other` branch already holds its inner plurals' categories.
  for (let pass = 0; pass < 100; pass++) {
    const elements = parseIcu(out, { captureLocation: true });
    const fix = elements && lackingPlural(out, elements, language);
    if (!fix) break;
    out = out.slice(0, fix.at) + fix.insert + out.slice(fix.at);
  }
  return out;
}

/** Rewrites only the literal spans of an ICU message, located in the original text, so its syntax stays byte for byte. */
function rewriteIcu(text: string, elements: readonly MessageFormatElement[], keepTerms: readonly string[]): string {
  const spans: Array<{ start: number; end: number }> = [];
  const collect = (els: readonly MessageFormatElement[]) => {
    for (const el of els) {
      if (el.type === TYPE.literal && el.location) spans.push({ start: el.location.start.offset, end: el.location.end.offset });
      else if (el.type === TYPE.plural || el.type === TYPE.select) for (const o of Object.values(el.options)) collect(o.value);
      else if (el.type === TYPE.tag) collect(el.children);
    }
  };
  collect(elements);
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.start < at) continue;
    out += text.slice(at, s.start) + accentText(text.slice(s.start, s.end), keepTerms);
    at = s.end;
  }
  return out + text.slice(at);
}

const ACCENTS: Record<string, string> = {
  a: 'à', b: 'ƀ', c: 'ç', d: 'ð', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'î', j: 'ĵ', k: 'ķ', l: 'ļ', m: 'ɱ',
  n: 'ñ', o: 'ö', p: 'þ', q: 'ǫ', r: 'ŕ', s: 'š', t: 'ţ', u: 'û', v: 'ṽ', w: 'ŵ', x: 'ẋ', y: 'ý', z: 'ž',
  A: 'À', B: 'Ɓ', C: 'Ç', D: 'Ð', E: 'É', F: 'Ƒ', G: 'Ĝ', H: 'Ĥ', I: 'Î', J: 'Ĵ', K: 'Ķ', L: 'Ļ', M: 'Ṁ',
  N: 'Ñ', O: 'Ö', P: 'Þ', Q: 'Ǫ', R: 'Ŕ', S: 'Š', T: 'Ţ', U: 'Û', V: 'Ṽ', W: 'Ŵ', X: 'Ẋ', Y: 'Ý', Z: 'Ž',
};
const VOWELS = new Set('aeiouyAEIOUY');

/** Pieces of plain text that must pass through untouched. */
const PROTECTED = [
  TEMPLATE_FIELD.source,
  SETTINGS_TOKEN.source,
  '<!--[\\s\\S]*?-->',
  '<\\/?[A-Za-z][^<>]*>',
  '&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#x[0-9A-Fa-f]+);',
  '\\{[^{}]*\\}',
  '%(?:\\d+\\$)?[sdif]',
  'https?://[^\\s<>"]+',
].join('|');

/** Accents the letters of `text` outside its protected pieces and do-not-translate terms. */
export function accentText(text: string, keepTerms: readonly string[] = []): string {
  const terms = termPattern(keepTerms);
  const pattern = new RegExp(`${PROTECTED}${terms ? `|${terms.source}` : ''}`, 'gu');
  let out = '';
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    out += accentLetters(text.slice(at, m.index)) + m[0];
    at = m.index! + m[0].length;
  }
  return out + accentLetters(text.slice(at));
}

function accentLetters(text: string): string {
  let out = '';
  for (const ch of text) {
    const accented = ACCENTS[ch];
    if (!accented) out += ch;
    else out += VOWELS.has(ch) ? accented + accented : accented;
  }
  return out;
}
