import { IntlMessageFormat } from 'intl-messageformat';

/** Values a message is filled from: `{token}` (and `{{.Token}}`) placeholders and ICU arguments. */
export type MessageParams = Readonly<Record<string, unknown>>;

/**
 * Formatting of catalog values (client conventions 1 and 2). A value with ICU syntax (`plural`,
 * `select`, `selectordinal`, `number`, `date`, `time`) goes through intl-messageformat with the
 * locale's plural rules; anything else, and a value whose ICU does not parse, is plain text:
 * `{token}` and the service's `{{.Token}}` filled from params, `#` replaced by the count. A token
 * without a param stays as written. Compiled messages are cached per (locale, text).
 */

/** A message ready to format: compiled once per (locale, text). */
type Compiled =
  | { kind: 'static'; text: string }
  | { kind: 'plain'; parts: PlainPart[]; names: Set<string>; text: string }
  | { kind: 'icu'; format: IntlMessageFormat; simple: string[]; complex: string[]; plain: Compiled };

/** A literal, a placeholder (`{name}`, `{{.a.b}}`; `raw` is what stays when no param fills it) or `#`. */
type PlainPart = string | { path: string[]; raw: string } | typeof POUND;

const POUND = 0;

/** ICU needs an argument with a type: `{n, plural, …}`, `{d, date}`… Simple `{token}` text stays plain. */
const ICU_SYNTAX = /\{\s*[^\s{},]+\s*,\s*(?:plural|select|selectordinal|number|date|time)\s*[,}]/;
const PLACEHOLDER = /\{\{\s*\.([\p{L}\p{N}_.]+)\s*\}\}|\{\s*([\p{L}\p{N}_$][\p{L}\p{N}_$.-]*)\s*\}|#/gu;

/** Compiled messages per locale (a locale's map is dropped whole past this size, bounding memory). */
const MAX_CACHED_PER_LOCALE = 5000;
const cache = new Map<string, Map<string, Compiled>>();
const numberFormats = new Map<string, Intl.NumberFormat>();

/** `text` formatted for `locale` with `params`; never throws. */
export function formatMessage(locale: string, text: string, params?: MessageParams): string {
  let byText = cache.get(locale);
  if (byText === undefined) {
    byText = new Map();
    cache.set(locale, byText);
  }
  let compiled = byText.get(text);
  if (compiled === undefined) {
    if (byText.size >= MAX_CACHED_PER_LOCALE) byText.clear();
    compiled = compile(locale, text);
    byText.set(text, compiled);
  }
  return run(compiled, locale, params);
}

/** Drops every compiled message (tests and long-lived processes that switch catalogs wholesale). */
export function clearFormatCache(): void {
  cache.clear();
}

function compile(locale: string, text: string): Compiled {
  const plain = compilePlain(text);
  if (!ICU_SYNTAX.test(text)) return plain;
  try {
    const format = new IntlMessageFormat(text, intlLocale(locale), undefined, { ignoreTag: true });
    const simple = new Set<string>();
    const complex = new Set<string>();
    collectArguments(format.getAst() as unknown as AstElement[], simple, complex);
    return { kind: 'icu', format, simple: [...simple], complex: [...complex], plain };
  } catch {
    // A value whose ICU does not parse (a translator's typo) is shown as plain text, never an error.
    return plain;
  }
}

function compilePlain(text: string): Compiled {
  const parts: PlainPart[] = [];
  const names = new Set<string>();
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    if (m[0] === '#') parts.push(POUND);
    else {
      const path = (m[1] ?? m[2]).split('.');
      names.add(path[0]);
      parts.push({ path, raw: m[0] });
    }
    last = at + m[0].length;
  }
  if (!parts.length) return { kind: 'static', text };
  if (last < text.length) parts.push(text.slice(last));
  return { kind: 'plain', parts, names, text };
}

function run(compiled: Compiled, locale: string, params: MessageParams | undefined): string {
  switch (compiled.kind) {
    case 'static':
      return compiled.text;
    case 'plain':
      return params ? fillPlain(compiled, locale, params) : compiled.text;
    case 'icu':
      return runIcu(compiled, locale, params ?? {});
  }
}

function runIcu(compiled: Extract<Compiled, { kind: 'icu' }>, locale: string, params: MessageParams): string {
  let values = params;
  for (const name of compiled.complex) {
    // A plural or select without its value cannot choose a branch: the text degrades to plain.
    if (params[name] === undefined || params[name] === null) return run(compiled.plain, locale, params);
  }
  for (const name of compiled.simple) {
    if (params[name] !== undefined && params[name] !== null) continue;
    // A token without a param stays as written.
    if (values === params) values = { ...params };
    (values as Record<string, unknown>)[name] = `{${name}}`;
  }
  try {
    const out = compiled.format.format(values as Record<string, string>);
    return typeof out === 'string' ? out : Array.isArray(out) ? out.join('') : String(out);
  } catch {
    return run(compiled.plain, locale, params);
  }
}

function fillPlain(compiled: Extract<Compiled, { kind: 'plain' }>, locale: string, params: MessageParams): string {
  let out = '';
  for (const part of compiled.parts) {
    if (typeof part === 'string') out += part;
    else if (part === POUND) out += pound(locale, params, compiled.names);
    else {
      const value = lookup(params, part.path);
      out += value === undefined || value === null ? part.raw : String(value);
    }
  }
  return out;
}

/**
 * `#` of plain text: the `count` param, else the only numeric param the text does not name as a
 * token (`Order #{id}` keeps its `#`), formatted for the locale; else `#` itself.
 */
function pound(locale: string, params: MessageParams, names: Set<string>): string {
  let count = params.count;
  if (typeof count !== 'number') {
    count = undefined;
    for (const name in params) {
      if (typeof params[name] !== 'number' || names.has(name)) continue;
      if (count !== undefined) return '#';
      count = params[name];
    }
  }
  if (typeof count !== 'number') return '#';
  let nf = numberFormats.get(locale);
  if (nf === undefined) {
    nf = new Intl.NumberFormat(intlLocale(locale));
    numberFormats.set(locale, nf);
  }
  return nf.format(count);
}

function lookup(params: MessageParams, path: string[]): unknown {
  let value: unknown = params;
  for (const name of path) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/** A locale code as Intl reads it (`pt_BR` gives `pt-BR`); one Intl refuses gives its default locale. */
function intlLocale(locale: string): string | undefined {
  const tag = locale.replace(/_/g, '-');
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/** The parser's element shape, as far as argument names go (types 1–6: argument, number, date, time, select, plural). */
interface AstElement {
  type: number;
  value?: unknown;
  options?: Record<string, { value: AstElement[] }>;
  children?: AstElement[];
}

function collectArguments(elements: AstElement[], simple: Set<string>, complex: Set<string>): void {
  for (const el of elements) {
    if (el.type === 1 && typeof el.value === 'string') simple.add(el.value);
    else if (el.type >= 2 && el.type <= 6 && typeof el.value === 'string') complex.add(el.value);
    if (el.options) for (const option of Object.values(el.options)) collectArguments(option.value, simple, complex);
    if (el.children) collectArguments(el.children, simple, complex);
  }
  for (const name of complex) simple.delete(name);
}
