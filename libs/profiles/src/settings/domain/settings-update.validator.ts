import { isDeepStrictEqual } from 'node:util';
import { LOCALE_PATTERN, type LocalizedText, MASK_TOKEN, type ModuleSettings, type SettingField } from '@flowplane/contracts';
import type { FieldProblem } from '@flowplane/platform/http';
import type { SettingValueResolver } from './setting-value.resolver';

/** What a settings write changes in the store. */
export interface SettingsUpdatePlan {
  /** Changed keys only: the new stored value, or `undefined` to remove the stored value. */
  writes: Map<string, unknown>;
  /** Every failing field (`values.<key>` or `values.<key>.<locale>`); nothing is written when non-empty. */
  problems: FieldProblem[];
}

// Outcome of one submitted value: a new stored value, removal, or "leave as stored".
type Outcome = { kind: 'set'; value: unknown } | { kind: 'clear' } | { kind: 'keep' };

/**
 * Checks a `PUT /admin/settings/{module}` body against the module's declarations and works out the
 * stored values it leads to:
 * - unknown keys, wrong types and values outside `options`, `pattern`, `integer`, `min` or `max` are
 *   problems, all reported at once;
 * - `null` or an empty string clears the stored value, so the env var or the default applies again;
 * - the mask token for a sensitive field keeps the stored value (a form sends back what it was shown);
 * - localized fields merge per locale: a locale set to empty (or null) drops that override, locales
 *   not mentioned stay, and a plain string is the source-locale text.
 */
export class SettingsUpdateValidator {
  constructor(private readonly resolver: SettingValueResolver) {}

  plan(module: ModuleSettings, input: Readonly<Record<string, unknown>>, stored: Readonly<Record<string, unknown>>): SettingsUpdatePlan {
    const problems: FieldProblem[] = [];
    const writes = new Map<string, unknown>();
    for (const [key, submitted] of Object.entries(input)) {
      const field = module.fields.find((f) => f.key === key);
      if (!field) {
        problems.push({ field: `values.${key}`, problems: [`is not a setting of module ${module.module}`] });
        continue;
      }
      const current = stored[key];
      const outcome = field.localized ? this.localized(field, submitted, current, problems) : plain(field, submitted, problems);
      if (!outcome || outcome.kind === 'keep') continue;
      const next = outcome.kind === 'set' ? outcome.value : undefined;
      if (!isDeepStrictEqual(next, current)) writes.set(key, next);
    }
    return { writes: problems.length ? new Map() : writes, problems };
  }

  private localized(field: SettingField, submitted: unknown, current: unknown, problems: FieldProblem[]): Outcome | undefined {
    const at = `values.${field.key}`;
    if (submitted === null || submitted === '') return { kind: 'clear' };
    let patch: Record<string, unknown>;
    if (typeof submitted === 'string') patch = { [this.resolver.sourceLocale]: submitted };
    else if (submitted !== null && typeof submitted === 'object' && !Array.isArray(submitted)) patch = submitted as Record<string, unknown>;
    else {
      problems.push({ field: at, problems: ['must be a string or an object mapping locale to string'] });
      return undefined;
    }
    const next: LocalizedText = this.resolver.storedLocaleMap(current);
    let failed = false;
    for (const [locale, text] of Object.entries(patch)) {
      const own: string[] = [];
      if (!LOCALE_PATTERN.test(locale)) own.push('is not a locale (for example en, pl or pt-BR)');
      if (text !== null && typeof text !== 'string') own.push('must be a string');
      else if (typeof text === 'string' && text !== '') own.push(...valueProblems(field, text));
      if (own.length) {
        problems.push({ field: `${at}.${locale}`, problems: own });
        failed = true;
        continue;
      }
      if (text === null || text === '') delete next[locale];
      else next[locale] = text as string;
    }
    if (failed) return undefined;
    return Object.keys(next).length ? { kind: 'set', value: next } : { kind: 'clear' };
  }
}

function plain(field: SettingField, submitted: unknown, problems: FieldProblem[]): Outcome | undefined {
  const at = `values.${field.key}`;
  if (submitted === null || submitted === '') return { kind: 'clear' };
  if (field.sensitive && submitted === MASK_TOKEN) return { kind: 'keep' };
  const typed = typedValue(field, submitted);
  if ('problem' in typed) {
    problems.push({ field: at, problems: [typed.problem] });
    return undefined;
  }
  const own = valueProblems(field, typed.value);
  if (own.length) {
    problems.push({ field: at, problems: own });
    return undefined;
  }
  return { kind: 'set', value: typed.value };
}

function typedValue(field: SettingField, v: unknown): { value: unknown } | { problem: string } {
  switch (field.type) {
    case 'string':
    case 'textarea':
    case 'secret':
      return typeof v === 'string' ? { value: v } : { problem: 'must be a string' };
    case 'url':
      return typeof v === 'string' && URL.canParse(v) ? { value: v } : { problem: 'must be an absolute URL' };
    case 'number': {
      // A numeric string is accepted for a number field, as forms send text.
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v.trim()) : NaN;
      return Number.isFinite(n) ? { value: n } : { problem: 'must be a number' };
    }
    case 'boolean':
      if (typeof v === 'boolean') return { value: v };
      if (v === 'true' || v === 'false') return { value: v === 'true' };
      return { problem: 'must be a boolean' };
    case 'json':
      return { value: v };
  }
}

/**
 * The declared constraints (options, pattern, whole number, bounds): a value that the owning
 * service's environment check would refuse is refused here too, so it is never stored only to be
 * ignored by that service.
 */
function valueProblems(field: SettingField, value: unknown): string[] {
  const problems: string[] = [];
  if (field.options?.length && !field.options.includes(String(value))) problems.push(`must be one of: ${field.options.join(', ')}`);
  if (field.pattern !== undefined && typeof value === 'string' && !new RegExp(field.pattern).test(value)) {
    problems.push(field.patternHint ? `must be ${field.patternHint}` : `must match ${field.pattern}`);
  }
  if (typeof value === 'number') {
    if (field.integer && !Number.isInteger(value)) problems.push('must be a whole number');
    if (field.min !== undefined && value < field.min) problems.push(`must be at least ${field.min}`);
    if (field.max !== undefined && value > field.max) problems.push(`must be at most ${field.max}`);
  }
  return problems;
}
