import type { BinaryNode, ConditionNode, FieldNode } from './condition.ast';
import { type ConditionParseOptions, parseCondition } from './condition.parser';
import type { CompiledCondition, ConditionContext, ConditionResult } from './condition.port';
import { looseEquals, normalize, order, parseNumeric, readField, segmentIndex } from './condition.semantics';

/**
 * Compiles a parsed condition to a tree of closures, once per source, so an evaluation is a few
 * direct calls with no AST dispatch. Every closure is total over `unknown` packets; only a throwing
 * getter or proxy trap in the packet can throw, and `evaluate` catches that.
 */

type Value = (ctx: ConditionContext) => unknown;
type Test = (ctx: ConditionContext) => boolean;

const TRUE: ConditionResult = Object.freeze({ value: true });
const FALSE: ConditionResult = Object.freeze({ value: false });

function rootOf(node: FieldNode): Value {
  switch (node.root) {
    case 'output':
      return (ctx) => ctx.output;
    case 'input':
      return (ctx) => ctx.input;
    case 'meta':
      return (ctx) => ctx.meta;
  }
}

function compileField(node: FieldNode): Value {
  const keys = node.path;
  const idx = keys.map(segmentIndex);
  const base = rootOf(node);
  switch (keys.length) {
    case 0:
      return (ctx) => normalize(base(ctx));
    case 1: {
      const [k0] = keys;
      const [i0] = idx;
      if (node.root === 'output') return (ctx) => readField(ctx.output, k0, i0);
      if (node.root === 'input') return (ctx) => readField(ctx.input, k0, i0);
      return (ctx) => readField(ctx.meta, k0, i0);
    }
    case 2: {
      const [k0, k1] = keys;
      const [i0, i1] = idx;
      if (node.root === 'output') return (ctx) => readField(readField(ctx.output, k0, i0), k1, i1);
      if (node.root === 'input') return (ctx) => readField(readField(ctx.input, k0, i0), k1, i1);
      return (ctx) => readField(readField(ctx.meta, k0, i0), k1, i1);
    }
    default: {
      const n = keys.length;
      return (ctx) => {
        let v = base(ctx);
        for (let i = 0; i < n; i++) {
          v = readField(v, keys[i], idx[i]);
          if (v === null) return null;
        }
        return v;
      };
    }
  }
}

function compileValue(node: ConditionNode): Value {
  switch (node.type) {
    case 'literal': {
      const v = node.value;
      return () => v;
    }
    case 'port':
      return (ctx) => normalize(ctx.port);
    case 'field':
      return compileField(node);
    default: {
      const test = compileTest(node);
      return test;
    }
  }
}

/** `==` with a literal on one side: the common `port == "ok"`, `output.n == 3`, `x == null`. */
function equalsLiteral(value: Value, literal: string | number | boolean | null): Test {
  if (typeof literal === 'string') {
    const asNumber = parseNumeric(literal);
    return (ctx) => {
      const v = value(ctx);
      if (v === literal) return true;
      const t = typeof v;
      return (t === 'number' || t === 'bigint') && (v as number) == asNumber;
    };
  }
  if (typeof literal === 'number') {
    return (ctx) => {
      const v = value(ctx);
      if (v === literal) return true;
      return typeof v === 'number' || typeof v === 'string' || typeof v === 'bigint' ? looseEquals(v, literal) : false;
    };
  }
  return (ctx) => value(ctx) === literal;
}

/** Ordering closures, specialised for a number literal on the right (`output.score >= 0.5`). */
function compileOrdering(op: '<' | '<=' | '>' | '>=', left: Value, right: ConditionNode): Test {
  if (right.type === 'literal' && typeof right.value === 'number') {
    const n = right.value;
    switch (op) {
      case '<':
        return (ctx) => {
          const v = left(ctx);
          return typeof v === 'number' ? v < n : order(v, n) < 0;
        };
      case '<=':
        return (ctx) => {
          const v = left(ctx);
          return typeof v === 'number' ? v <= n : order(v, n) <= 0;
        };
      case '>':
        return (ctx) => {
          const v = left(ctx);
          return typeof v === 'number' ? v > n : order(v, n) > 0;
        };
      case '>=':
        return (ctx) => {
          const v = left(ctx);
          return typeof v === 'number' ? v >= n : order(v, n) >= 0;
        };
    }
  }
  const r = compileValue(right);
  switch (op) {
    case '<':
      return (ctx) => order(left(ctx), r(ctx)) < 0;
    case '<=':
      return (ctx) => order(left(ctx), r(ctx)) <= 0;
    case '>':
      return (ctx) => order(left(ctx), r(ctx)) > 0;
    case '>=':
      return (ctx) => order(left(ctx), r(ctx)) >= 0;
  }
}

function compileBinary(node: BinaryNode): Test {
  const { operator, left, right } = node;
  if (operator === '==' || operator === '!=') {
    let eq: Test;
    if (right.type === 'literal') eq = equalsLiteral(compileValue(left), right.value);
    else if (left.type === 'literal') eq = equalsLiteral(compileValue(right), left.value);
    else {
      const l = compileValue(left);
      const r = compileValue(right);
      eq = (ctx) => looseEquals(l(ctx), r(ctx));
    }
    if (operator === '==') return eq;
    return (ctx) => !eq(ctx);
  }
  return compileOrdering(operator, compileValue(left), right);
}

function compileTest(node: ConditionNode): Test {
  switch (node.type) {
    case 'literal': {
      const v = node.value === true;
      return () => v;
    }
    case 'port':
    case 'field': {
      // A bare value in boolean position is true only when it is the boolean true.
      const value = compileValue(node);
      return (ctx) => value(ctx) === true;
    }
    case 'not': {
      const operand = compileTest(node.operand);
      return (ctx) => !operand(ctx);
    }
    case 'and': {
      const ops = node.operands.map(compileTest);
      if (ops.length === 2) {
        const [a, b] = ops;
        return (ctx) => a(ctx) && b(ctx);
      }
      if (ops.length === 3) {
        const [a, b, c] = ops;
        return (ctx) => a(ctx) && b(ctx) && c(ctx);
      }
      return (ctx) => {
        for (const op of ops) if (!op(ctx)) return false;
        return true;
      };
    }
    case 'or': {
      const ops = node.operands.map(compileTest);
      if (ops.length === 2) {
        const [a, b] = ops;
        return (ctx) => a(ctx) || b(ctx);
      }
      if (ops.length === 3) {
        const [a, b, c] = ops;
        return (ctx) => a(ctx) || b(ctx) || c(ctx);
      }
      return (ctx) => {
        for (const op of ops) if (op(ctx)) return true;
        return false;
      };
    }
    case 'binary':
      return compileBinary(node);
  }
}

/** A thrown value as text, without letting a hostile error object throw again. */
function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`;
    return String(error);
  } catch {
    return 'unprintable error';
  }
}

class Compiled implements CompiledCondition {
  readonly evaluate: (ctx: ConditionContext) => ConditionResult;

  constructor(
    readonly source: string,
    readonly isDefault: boolean,
    test: Test | undefined,
    readonly parseError?: string,
  ) {
    if (!test) {
      const failed: ConditionResult = Object.freeze({ value: false, error: parseError ?? 'condition did not parse' });
      this.evaluate = () => failed;
      return;
    }
    this.evaluate = (ctx) => {
      try {
        return test(ctx) ? TRUE : FALSE;
      } catch (error) {
        return { value: false, error: `condition evaluation failed: ${errorText(error)}` };
      }
    };
  }
}

const ALWAYS: Test = () => true;

/**
 * Parses and compiles an edge condition once. Absent, blank or literal `true` (optionally in
 * parentheses) is a default edge; a source that does not parse yields a condition whose `parseError`
 * is set and whose evaluation is always `{value: false, error}`. Never throws; `evaluate` never throws.
 */
export function compileCondition(source: string | undefined | null, options: ConditionParseOptions = {}): CompiledCondition {
  // Documents arrive from YAML, where `condition: true` is a boolean: accept it rather than fail.
  const raw: unknown = source;
  if (raw === undefined || raw === null || raw === true) return new Compiled(raw === true ? 'true' : '', true, ALWAYS);
  if (typeof raw !== 'string') return new Compiled(errorText(raw), false, undefined, `condition syntax error at column 1: condition must be a string, got ${typeof raw}`);
  if (raw.trim() === '') return new Compiled(raw, true, ALWAYS);
  const parsed = parseCondition(raw, options);
  if (!parsed.ok) return new Compiled(raw, false, undefined, parsed.error.message);
  const ast = parsed.ast;
  return new Compiled(raw, ast.type === 'literal' && ast.value === true, compileTest(ast));
}
