import type { ConditionNode } from './condition.ast';

/**
 * Prints a tree back to condition source with only the parentheses precedence requires, so that
 * `parseCondition(printCondition(ast))` yields the same tree. Strings are printed double-quoted.
 */

/** Binding strength: higher binds tighter (mirrors the grammar in condition.parser.ts). */
function strength(node: ConditionNode): number {
  switch (node.type) {
    case 'or':
      return 1;
    case 'and':
      return 2;
    case 'not':
      return 3;
    case 'binary':
      return node.operator === '==' || node.operator === '!=' ? 4 : 5;
    default:
      return 6;
  }
}

function wrap(node: ConditionNode, min: number): string {
  const text = printCondition(node);
  return strength(node) >= min ? text : `(${text})`;
}

function literal(value: string | number | boolean | null): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  return String(value);
}

/** Source text for a parsed condition (canonical spacing, minimal parentheses). */
export function printCondition(node: ConditionNode): string {
  switch (node.type) {
    case 'literal':
      return literal(node.value);
    case 'port':
      return node.spelling;
    case 'field':
      return [node.spelling, ...node.path].join('.');
    case 'not':
      return `!${wrap(node.operand, 3)}`;
    case 'and':
      // A nested chain keeps its parentheses so the n-ary tree round-trips unchanged.
      return node.operands.map((o) => wrap(o, 3)).join(' && ');
    case 'or':
      return node.operands.map((o) => wrap(o, 2)).join(' || ');
    case 'binary': {
      const equality = node.operator === '==' || node.operator === '!=';
      // Neither level chains: an operand of the same level needs parentheses.
      return `${wrap(node.left, equality ? 5 : 6)} ${node.operator} ${wrap(node.right, equality ? 5 : 6)}`;
    }
  }
}
