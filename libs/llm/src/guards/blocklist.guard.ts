import { LlmConfigError } from '../errors';
import { actionOf, type Guard, type GuardCheck, type GuardResult, stringList } from './guard';
import { injectionFindings } from './injection-rubric';

/** Values of the blocklist's `rubric` setting: the default injection rubric on (default) or off. */
export const BLOCKLIST_RUBRICS = ['injection', 'none'] as const;

/** Regexes compiled from config strings, kept per pattern source. */
const compiled = new Map<string, RegExp>();
const MAX_CACHED = 1000;

function regex(source: string, make: () => RegExp): RegExp {
  let re = compiled.get(source);
  if (!re) {
    re = make();
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(source, re);
  }
  return re;
}

function escape(term: string): string {
  return term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/**
 * `blocklist`: the default injection rubric on input (`rubric`: `injection`, the default, or `none`), plus
 * configurable `terms` (whole words or phrases, case-insensitive, Unicode-aware word edges) and
 * `patterns` (regular expressions, case-insensitive). A match blocks, or flags when `action` is
 * `flag`. An invalid pattern or an unknown rubric is a configuration error, never a silent pass.
 */
export class BlocklistGuard implements Guard {
  readonly id = 'blocklist';
  readonly description = 'Blocks (or flags) prompt-injection phrasings (the default rubric) and text containing configured terms or matching configured patterns.';

  async check({ text, role, config }: GuardCheck): Promise<GuardResult> {
    const folded = fold(text);
    const rubric = typeof config.rubric === 'string' && config.rubric.trim() !== '' ? config.rubric.trim().toLowerCase() : 'injection';
    if (!(BLOCKLIST_RUBRICS as readonly string[]).includes(rubric)) throw new LlmConfigError(`blocklist rubric ${JSON.stringify(config.rubric)} is unknown; known: ${BLOCKLIST_RUBRICS.join(', ')}`);
    // Injection is a property of what a user asks; a draft quoting a manual ("enable developer mode") is not one.
    const reasons: string[] = rubric === 'injection' && role === 'input' ? injectionFindings(text) : [];
    for (const term of stringList(config.terms)) {
      const t = fold(term);
      const re = regex(`t:${t}`, () => new RegExp(`(?<![\\p{L}\\p{N}_])${escape(t).replace(/\s+/g, '\\s+')}(?![\\p{L}\\p{N}_])`, 'u'));
      if (re.test(folded)) reasons.push(`contains the blocked term "${term}"`);
    }
    for (const pattern of stringList(config.patterns, /\n/)) {
      let re: RegExp;
      try {
        re = regex(`p:${pattern}`, () => new RegExp(pattern, 'iu'));
      } catch (e) {
        throw new LlmConfigError(`blocklist pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${(e as Error).message}`);
      }
      if (re.test(text)) reasons.push(`matches the blocked pattern /${pattern}/`);
    }
    if (reasons.length === 0) return { verdict: 'allow', reasons };
    return { verdict: actionOf(config, 'block'), reasons };
  }
}
