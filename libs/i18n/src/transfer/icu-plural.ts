/** CLDR plural categories in their canonical order. */
export const PLURAL_CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;
export type PluralCategory = (typeof PLURAL_CATEGORIES)[number];

/** A message that is one ICU plural argument and nothing else: `{count, plural, one {…} other {…}}`. */
export interface IcuPlural {
  variable: string;
  branches: Partial<Record<PluralCategory, string>>;
}

const HEAD = /^\{([A-Za-z_][A-Za-z0-9_]*), plural, /;

/** The canonical text of a plural message: branches in CLDR order, one space between parts. */
export function formatIcuPlural(plural: IcuPlural): string {
  const parts = PLURAL_CATEGORIES.filter((c) => plural.branches[c] !== undefined).map((c) => `${c} {${plural.branches[c]}}`);
  return `{${plural.variable}, plural, ${parts.join(' ')}}`;
}

/**
 * Reads a message that is exactly one plural argument in canonical form. Anything else (text
 * around the argument, `=N` or `offset:`, quoted braces, other spacing or order) answers null,
 * so callers keep such messages verbatim and a round trip never rewrites a translator's text.
 */
export function parseIcuPlural(message: string): IcuPlural | null {
  const head = HEAD.exec(message);
  if (!head || !message.endsWith('}') || /'[{}#]/.test(message)) return null;
  const branches: Partial<Record<PluralCategory, string>> = {};
  let i = head[0].length;
  const end = message.length - 1;
  while (i < end) {
    const sel = /^([a-z]+) \{/.exec(message.slice(i));
    if (!sel || !(PLURAL_CATEGORIES as readonly string[]).includes(sel[1])) return null;
    const category = sel[1] as PluralCategory;
    if (branches[category] !== undefined) return null;
    let depth = 1;
    let j = i + sel[0].length;
    const start = j;
    for (; j < message.length && depth > 0; j++) {
      if (message[j] === '{') depth++;
      else if (message[j] === '}') depth--;
    }
    if (depth !== 0) return null;
    branches[category] = message.slice(start, j - 1);
    i = j;
    if (message[i] === ' ') i++;
  }
  if (branches.other === undefined) return null;
  const plural = { variable: head[1], branches };
  return formatIcuPlural(plural) === message ? plural : null;
}
