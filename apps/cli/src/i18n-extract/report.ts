import type { ContextMap } from './contexts';
import type { FoundKey } from './scan';

/** One entry of `POST /i18n/report-keys`. */
export interface ReportedKey {
  key: string;
  text: string;
  module: string;
  context?: string;
}

/** The body of `POST /i18n/report-keys`. */
export interface ReportBody {
  ns?: string;
  keys: ReportedKey[];
}

/** What the route answers. */
export interface ReportAnswer {
  created: number;
  existing: number;
  contextUpdated: number;
  modulesAdded: number;
}

/** The route's limits (ReportKeysDto): keys per call, key and text lengths. */
export const MAX_KEYS_PER_REPORT = 500;
const MAX_KEY_LENGTH = 200;
const MAX_TEXT_LENGTH = 10_000;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** A key once, with the text it is reported with and where that text came from. */
export interface MergedKey {
  key: string;
  text: string;
  file: string;
  line: number;
}

/**
 * One entry per key in the order first seen (files in walk order, calls in source order). The text
 * is the first literal default; a later, different default is a warning and loses. A call without a
 * default takes no part in the choice. Keys the route would refuse are left out with a warning.
 */
export function mergeKeys(found: readonly FoundKey[]): { keys: MergedKey[]; warnings: string[] } {
  const byKey = new Map<string, MergedKey & { hasText: boolean }>();
  const warnings: string[] = [];
  const warned = new Set<string>();
  for (const call of found) {
    let f = call;
    if (f.key.length > MAX_KEY_LENGTH || CONTROL_CHARS.test(f.key)) {
      if (!warned.has(`bad\u0000${f.key}`)) warnings.push(`${f.file}:${f.line}: key ${JSON.stringify(f.key.slice(0, 60))} is skipped: keys are at most ${MAX_KEY_LENGTH} characters without control characters`);
      warned.add(`bad\u0000${f.key}`);
      continue;
    }
    if (f.text !== undefined && f.text.length > MAX_TEXT_LENGTH) {
      warnings.push(`${f.file}:${f.line}: the default of ${JSON.stringify(f.key)} is over ${MAX_TEXT_LENGTH} characters; reported without text`);
      f = { ...f, text: undefined };
    }
    const seen = byKey.get(f.key);
    if (!seen) {
      byKey.set(f.key, { key: f.key, text: f.text ?? '', file: f.file, line: f.line, hasText: f.text !== undefined });
      continue;
    }
    if (f.text === undefined) continue;
    if (!seen.hasText) {
      Object.assign(seen, { text: f.text, file: f.file, line: f.line, hasText: true });
      continue;
    }
    if (f.text !== seen.text && !warned.has(`${f.key}\u0000${f.text}`)) {
      warned.add(`${f.key}\u0000${f.text}`);
      warnings.push(`${f.file}:${f.line}: ${JSON.stringify(f.key)} has the default ${JSON.stringify(f.text)} here but ${JSON.stringify(seen.text)} at ${seen.file}:${seen.line}; keeping the first`);
    }
  }
  return { keys: [...byKey.values()].map(({ key, text, file, line }) => ({ key, text, file, line })), warnings };
}

/**
 * Whether `module` may set the note of a key whose row lists `modules` (undefined: no such key).
 * Modules accumulate in the order they reported the key, so the first one is the key's owner; a
 * new key, or one no surface reported yet (made in admin or seeded), is the reporter's to annotate.
 * Any other key is reused from another module and gets no note (convention 6).
 */
export function ownsKey(modules: readonly string[] | undefined, module: string): boolean {
  return modules === undefined || modules.length === 0 || modules[0] === module;
}

/** The report: every key with the module, and the note of each key the module owns. */
export function buildReport(
  keys: readonly MergedKey[],
  module: string,
  ns: string,
  notes: ContextMap | undefined,
  modulesOf: ReadonlyMap<string, readonly string[]>,
): { body: ReportBody; withheld: Array<{ key: string; owner: string }> } {
  const withheld: Array<{ key: string; owner: string }> = [];
  const out: ReportedKey[] = keys.map((k) => {
    const note = notes?.noteFor(k.key);
    const entry: ReportedKey = { key: k.key, text: k.text, module };
    if (note === undefined) return entry;
    const modules = modulesOf.get(k.key);
    if (!ownsKey(modules, module)) {
      withheld.push({ key: k.key, owner: modules![0] });
      return entry;
    }
    return { ...entry, context: note };
  });
  return { body: { ...(ns ? { ns } : {}), keys: out }, withheld };
}

/** The longest prefix every key shares (the narrowest `prefix` filter covering them all). */
export function commonPrefix(keys: readonly string[]): string {
  if (!keys.length) return '';
  let prefix = keys[0];
  for (const k of keys) {
    let i = 0;
    while (i < prefix.length && i < k.length && prefix[i] === k[i]) i++;
    prefix = prefix.slice(0, i);
    if (!prefix) break;
  }
  return prefix;
}
