/**
 * The widget's compact `$t`: the catalog value, else the inline English default, else the key;
 * `{name}` filled from params (unknown tokens left as they are); ICU plurals
 * `{n, plural, =0 {...} one {# item} other {# items}}` chosen by `Intl.PluralRules`. The kit's full
 * `$t` (intl-messageformat) is for apps; the widget's bundle budget has no room for it.
 */

export type Params = Record<string, string | number>;

/** The text between the brace at `open` and its match, and the index after the match. */
function group(s: string, open: number): [string, number] {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return [s.slice(open + 1, i), i + 1];
  }
  return [s.slice(open + 1), s.length];
}

/** One message formatted for `locale`. */
export function format(message: string, params: Params = {}, locale = 'en'): string {
  let out = '';
  let i = 0;
  while (i < message.length) {
    const open = message.indexOf('{', i);
    if (open < 0) break;
    out += message.slice(i, open);
    const [body, next] = group(message, open);
    i = next;
    const plural = /^\s*(\w+)\s*,\s*plural\s*,/.exec(body);
    if (plural) {
      const n = Number(params[plural[1]]);
      const forms: Record<string, string> = {};
      let rest = body.slice(plural[0].length);
      for (let m = /^\s*(=?\w+)\s*\{/.exec(rest); m; m = /^\s*(=?\w+)\s*\{/.exec(rest)) {
        const [text, end] = group(rest, m[0].length - 1);
        forms[m[1]] = text;
        rest = rest.slice(end);
      }
      const rules = pluralRules(locale);
      const chosen = forms[`=${n}`] ?? forms[rules.select(n)] ?? forms.other ?? '';
      out += format(Number.isFinite(n) ? chosen.replace(/#/g, n.toLocaleString(rules.resolvedOptions().locale)) : chosen, params, locale);
    } else {
      const value = params[body.trim()];
      out += value === undefined ? `{${body}}` : typeof value === 'number' ? value.toLocaleString(pluralRules(locale).resolvedOptions().locale) : value;
    }
  }
  return out + message.slice(i);
}

/** The locale's plural rules (English for a tag Intl rejects). */
function pluralRules(locale: string): Intl.PluralRules {
  try {
    return new Intl.PluralRules(locale);
  } catch {
    return new Intl.PluralRules('en');
  }
}

/** A catalog with its language: `t(key, default, params)`. */
export function translator(messages: Record<string, string>, locale: string) {
  return (key: string, fallback?: string, params?: Params): string => format(messages[key] ?? fallback ?? key, params, locale);
}
