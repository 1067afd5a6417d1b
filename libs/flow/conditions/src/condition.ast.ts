/**
 * Syntax tree of the condition language (spec "Rules: templates" item 7). Produced by
 * `parseCondition`, consumed by the closure compiler and the printer.
 */

/** A literal value: string, number, boolean or null (`nil` parses to null). */
export interface LiteralNode {
  readonly type: 'literal';
  readonly value: string | number | boolean | null;
}

/** `port`, `output` and `output.name`: the name of the output port the handler emitted on. */
export interface PortNode {
  readonly type: 'port';
  /** How it was written, kept for printing (`port`, `output` or `output.name`). */
  readonly spelling: 'port' | 'output' | 'output.name';
}

/**
 * A field of the step's output packet (`output.<path>`, `packet.<path>`), of the incoming packet
 * (`input.<path>`) or of the run input's `meta` object (`meta.<path>`, edge conditions only).
 */
export interface FieldNode {
  readonly type: 'field';
  /** Which value: `output` (also spelt `packet`), `input` or the run input's `meta`. */
  readonly root: 'output' | 'input' | 'meta';
  /** How the root was written (`output`, `packet`, `input`, `meta`, or `payload` in event filters), kept for printing. */
  readonly spelling: 'output' | 'packet' | 'input' | 'meta' | 'payload';
  /** Dotted segments after the root; empty for bare `packet` / `input` / `meta` (the whole value). */
  readonly path: readonly string[];
}

/** `!operand`. */
export interface NotNode {
  readonly type: 'not';
  readonly operand: ConditionNode;
}

/**
 * `a && b && ...` / `a || b || ...` (short-circuit, left to right). N-ary so that a long chain is a
 * loop rather than a deep tree; a parenthesised chain inside another stays a separate node.
 */
export interface LogicalNode {
  readonly type: 'and' | 'or';
  /** Two or more operands. */
  readonly operands: readonly ConditionNode[];
}

/** Equality and ordering operators. */
export type BinaryOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** `left <op> right` for the equality and ordering operators. */
export interface BinaryNode {
  readonly type: 'binary';
  readonly operator: BinaryOperator;
  readonly left: ConditionNode;
  readonly right: ConditionNode;
}

/** Any node of a parsed condition. */
export type ConditionNode = LiteralNode | PortNode | FieldNode | NotNode | LogicalNode | BinaryNode;
