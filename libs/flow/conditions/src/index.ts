export * from './condition.port';
export * from './condition.ast';
export { parseCondition, MAX_CONDITION_DEPTH, MAX_CONDITION_LENGTH } from './condition.parser';
export type { ConditionParseError, ConditionParseResult } from './condition.parser';
export { compileCondition } from './condition.compiler';
export { ConditionCache, compileConditionCached, DEFAULT_CONDITION_CACHE_SIZE } from './condition.cache';
export { printCondition } from './condition.printer';
