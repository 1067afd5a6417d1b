export * from './condition.port';
export * from './condition.ast';
export { parseCondition, MAX_CONDITION_DEPTH, MAX_CONDITION_LENGTH } from './condition.parser';
export type { ConditionParseError, ConditionParseOptions, ConditionParseResult } from './condition.parser';
export { compileCondition } from './condition.compiler';
export { ConditionCache, compileConditionCached, DEFAULT_CONDITION_CACHE_SIZE } from './condition.cache';
export { printCondition } from './condition.printer';

import { compileCondition } from './condition.compiler';
import type { CompiledCondition } from './condition.port';

/**
 * An event filter (`x-event-filter` of a subscriber deployment): the condition language where
 * `payload.<path>` reads the event's payload. Evaluate with `filter.evaluate({port: '', output: payload, input: payload})`.
 */
export function compileEventFilter(source: string | undefined | null): CompiledCondition {
  return compileCondition(source, { payload: true });
}
