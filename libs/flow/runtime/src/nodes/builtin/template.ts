/**
 * A logic-less `{{ path }}` renderer for node configs (no helpers, no code, no partials): the only
 * thing a template can do is read a dotted path of the scope, so a flow author cannot run code.
 */

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const SEGMENT = /^[A-Za-z0-9_$-]+$/;

/**
 * The value at a dotted path (`a.b.0.c`) of `root`, reading own properties only (so `constructor`
 * or `__proto__` never reach the prototype); `undefined` when any step is missing. An empty path
 * is the root itself.
 */
export function getPath(root: unknown, path: string): unknown {
  const trimmed = path.trim();
  if (trimmed === '') return root;
  let current: unknown = root;
  for (const segment of trimmed.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** How a value prints inside text: strings as they are, null/undefined empty, objects as JSON. */
export function stringifyValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/**
 * Replaces every `{{ path }}` of `template` with the value at that path of `scope`. A missing path
 * renders as an empty string; a placeholder whose path is not dotted identifiers/indices (for
 * example `{{ a + b }}`) also renders empty: nothing is ever evaluated. `encode` escapes each
 * inserted value (URLs use `encodeURIComponent`).
 */
export function renderTemplate(template: string, scope: unknown, encode: (text: string) => string = (t) => t): string {
  return template.replace(PLACEHOLDER, (_match, raw: string) => {
    const path = raw.trim();
    if (path === '' || !path.split('.').every((s) => SEGMENT.test(s))) return '';
    return encode(stringifyValue(getPath(scope, path)));
  });
}
