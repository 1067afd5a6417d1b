import type { BinaryOperator, ConditionNode, FieldNode, LiteralNode, PortNode } from './condition.ast';

/**
 * Hand-written tokenizer and recursive-descent parser for the condition language (spec "Rules:
 * templates" item 7). Grammar, lowest precedence first:
 *
 *   condition  := or EOF
 *   or         := and ( '||' and )*
 *   and        := not ( '&&' not )*
 *   not        := '!' not | equality
 *   equality   := comparison ( ( '==' | '!=' ) comparison )?
 *   comparison := primary ( ( '<' | '<=' | '>' | '>=' ) primary )?
 *   primary    := literal | variable | '(' or ')'
 *
 * `!` sits between `&&` and `==` exactly as the spec lists it, so `!port == "x"` is
 * `!(port == "x")`, and a `!` cannot start an operand of `==` or `<` without parentheses
 * (`a == !b` is a parse error; write `a == (!b)`). Equality and comparison do not chain
 * (`a == b == c` is a parse error).
 */

/** Conditions longer than this are refused (they are one-line edge labels, not programs). */
export const MAX_CONDITION_LENGTH = 10_000;
/** Nesting of parentheses and `!` beyond this is refused, which keeps parsing and evaluation off deep stacks. */
export const MAX_CONDITION_DEPTH = 64;

/** Why a condition does not parse, with where. */
export interface ConditionParseError {
  /** Human-readable message, including the column and what was expected. */
  readonly message: string;
  /** 0-based offset into the source. */
  readonly offset: number;
  /** 1-based column (offset + 1). */
  readonly column: number;
}

/** Result of `parseCondition`: the tree, or the first syntax error. */
export type ConditionParseResult =
  | { readonly ok: true; readonly ast: ConditionNode }
  | { readonly ok: false; readonly error: ConditionParseError };

type Token =
  | { kind: 'string'; value: string; start: number; end: number }
  | { kind: 'number'; value: number; start: number; end: number }
  | { kind: 'path'; segments: string[]; start: number; end: number }
  | { kind: 'op'; value: '||' | '&&' | '!' | BinaryOperator; start: number; end: number }
  | { kind: '(' | ')' | 'eof'; start: number; end: number };

/** Thrown inside the parser only; `parseCondition` turns it into a result. */
class SyntaxFailure {
  constructor(
    readonly offset: number,
    readonly detail: string,
  ) {}
}

const fail = (offset: number, detail: string): never => {
  throw new SyntaxFailure(offset, detail);
};

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isIdentStart = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isIdentPart = (c: string): boolean => isIdentStart(c) || isDigit(c);
const isSpace = (c: string): boolean => /\s/.test(c);

const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', '"': '"', "'": "'", '/': '/', n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '0': '\0' };

/** Reads a quoted string starting at `start` (the quote); returns the token. */
function readString(src: string, start: number): Token {
  const quote = src[start];
  let out = '';
  let i = start + 1;
  while (i < src.length) {
    const c = src[i];
    if (c === quote) return { kind: 'string', value: out, start, end: i + 1 };
    if (c === '\\') {
      const e = src[i + 1];
      if (e === undefined) break;
      if (e === 'u') {
        const hex = src.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(i, `invalid escape '\\u${hex}' in string: \\u needs four hex digits`);
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
        continue;
      }
      const mapped = ESCAPES[e];
      if (mapped === undefined) fail(i, `unknown escape '\\${e}' in string (known: \\\\ \\" \\' \\/ \\n \\r \\t \\b \\f \\0 \\uXXXX)`);
      out += mapped;
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  return fail(start, `unterminated string: the ${quote === '"' ? 'double' : 'single'} quote opened here is never closed`);
}

/** Reads a number literal (`-?digits(.digits)?([eE][+-]?digits)?`) starting at `start`. */
function readNumber(src: string, start: number): Token {
  const m = /^-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(src.slice(start, start + 400));
  const text = m ? m[0] : '';
  const end = start + text.length;
  const next = src[end];
  if (!m || (next !== undefined && (isIdentPart(next) || next === '.'))) {
    let j = end;
    while (j < src.length && (isIdentPart(src[j]) || src[j] === '.')) j++;
    fail(start, `malformed number '${src.slice(start, Math.max(j, start + 1))}' (numbers look like 42, -7, 0.5 or 1e3)`);
  }
  const value = Number(text);
  if (!Number.isFinite(value)) fail(start, `number '${text}' is out of range`);
  return { kind: 'number', value, start, end };
}

/** Reads a dotted path (`ident(.segment)*`, segments are identifiers or digits). */
function readPath(src: string, start: number): Token {
  const segments: string[] = [];
  let i = start;
  for (;;) {
    const s = i;
    while (i < src.length && isIdentPart(src[i])) i++;
    if (i === s) fail(i, `expected a field name after '.'${i < src.length ? ` but found '${src[i]}'` : ' but the condition ended'}`);
    segments.push(src.slice(s, i));
    if (src[i] !== '.') break;
    i++;
  }
  return { kind: 'path', segments, start, end: i };
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (t: Token): void => {
    tokens.push(t);
    i = t.end;
  };
  const op = (value: '||' | '&&' | '!' | BinaryOperator): void => push({ kind: 'op', value, start: i, end: i + value.length });
  while (i < src.length) {
    const c = src[i];
    const n = src[i + 1];
    if (isSpace(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      push(readString(src, i));
    } else if (isDigit(c) || (c === '-' && n !== undefined && isDigit(n))) {
      push(readNumber(src, i));
    } else if (isIdentStart(c)) {
      const path = readPath(src, i);
      let j = path.end;
      while (j < src.length && isSpace(src[j])) j++;
      if (src[j] === '(') fail(i, `function calls are not in the language: '${src.slice(i, path.end)}(' cannot be called`);
      push(path);
    } else if (c === '(' || c === ')') {
      push({ kind: c, start: i, end: i + 1 });
    } else if (c === '|') {
      if (n !== '|') fail(i, `unexpected '|': did you mean '||'?`);
      op('||');
    } else if (c === '&') {
      if (n !== '&') fail(i, `unexpected '&': did you mean '&&'?`);
      op('&&');
    } else if (c === '=') {
      if (n !== '=') fail(i, `assignment is not in the language: unexpected '='; use '==' to compare`);
      if (src[i + 2] === '=') fail(i, `unexpected '===': use '==' (equality is already loose)`);
      op('==');
    } else if (c === '!') {
      if (n === '=') {
        if (src[i + 2] === '=') fail(i, `unexpected '!==': use '!=' (equality is already loose)`);
        op('!=');
      } else op('!');
    } else if (c === '<' || c === '>') {
      op(n === '=' ? (`${c}=` as BinaryOperator) : c);
    } else if (c === '+' || c === '-' || c === '*' || c === '/' || c === '%' || c === '^') {
      fail(i, `arithmetic is not in the language: unexpected '${c}'`);
    } else if (c === '[' || c === ']') {
      fail(i, `brackets are not in the language: unexpected '${c}' (no indexing or iteration; index arrays with a dotted path such as output.items.0)`);
    } else if (c === ',') {
      fail(i, `unexpected ',': function calls and lists are not in the language`);
    } else if (c === '.') {
      fail(i, `unexpected '.' (a field path starts with port, output, packet or input; a number needs a digit before '.')`);
    } else if (c === '?' || c === ':') {
      fail(i, `unexpected '${c}': the conditional operator is not in the language`);
    } else {
      fail(i, `unexpected character '${c}'`);
    }
  }
  tokens.push({ kind: 'eof', start: src.length, end: src.length });
  return tokens;
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'string':
      return `string ${JSON.stringify(t.value)}`;
    case 'number':
      return `number ${t.value}`;
    case 'path':
      return `'${t.segments.join('.')}'`;
    case 'op':
      return `'${t.value}'`;
    case 'eof':
      return 'the end of the condition';
    default:
      return `'${t.kind}'`;
  }
}

const VALUE_EXPECTED = 'a value (port, output, output.<path>, packet.<path>, input.<path>, a quoted string, a number, true, false or null)';
const KEYWORD_HINTS: Readonly<Record<string, string>> = { and: "use '&&'", or: "use '||'", not: "use '!'" };

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly options: ConditionParseOptions = {},
  ) {}

  parse(): ConditionNode {
    const node = this.parseOr();
    const t = this.peek();
    if (t.kind !== 'eof') {
      if (t.kind === ')') fail(t.start, `unexpected ')': no '(' is open`);
      this.unexpectedAfterValue(t, 'the end of the condition');
    }
    return node;
  }

  /** Reports a token that follows a complete operand where only an operator or `closer` may. */
  private unexpectedAfterValue(t: Token, closer: string): never {
    if (t.kind === 'number' && t.value < 0) fail(t.start, `arithmetic is not in the language: unexpected '-'`);
    if (t.kind === 'path' && t.segments.length === 1 && KEYWORD_HINTS[t.segments[0]]) fail(t.start, `unexpected '${t.segments[0]}': ${KEYWORD_HINTS[t.segments[0]]}`);
    return fail(t.start, `unexpected ${describe(t)}; expected an operator (==, !=, <, <=, >, >=, &&, ||) or ${closer}`);
  }

  private peek(): Token {
    return this.tokens[this.pos];
  }

  private isOp(...values: string[]): boolean {
    const t = this.peek();
    return t.kind === 'op' && values.includes(t.value);
  }

  private enter(at: number): void {
    if (++this.depth > MAX_CONDITION_DEPTH) fail(at, `condition nested too deeply (more than ${MAX_CONDITION_DEPTH} levels of parentheses and '!')`);
  }

  private parseOr(): ConditionNode {
    const operands = [this.parseAnd()];
    while (this.isOp('||')) {
      this.pos++;
      operands.push(this.parseAnd());
    }
    return operands.length === 1 ? operands[0] : { type: 'or', operands };
  }

  private parseAnd(): ConditionNode {
    const operands = [this.parseNot()];
    while (this.isOp('&&')) {
      this.pos++;
      operands.push(this.parseNot());
    }
    return operands.length === 1 ? operands[0] : { type: 'and', operands };
  }

  private parseNot(): ConditionNode {
    if (!this.isOp('!')) return this.parseEquality();
    const bang = this.tokens[this.pos++];
    this.enter(bang.start);
    const operand = this.parseNot();
    this.depth--;
    return { type: 'not', operand };
  }

  private parseEquality(): ConditionNode {
    const left = this.parseComparison();
    if (!this.isOp('==', '!=')) return left;
    const opToken = this.tokens[this.pos++] as Token & { kind: 'op' };
    const right = this.parseComparison(opToken);
    if (this.isOp('==', '!=')) {
      fail(this.peek().start, `'${opToken.value}' cannot be chained: use && between comparisons or parenthesise one side`);
    }
    return { type: 'binary', operator: opToken.value as BinaryOperator, left, right };
  }

  private parseComparison(after?: Token & { kind: 'op' }): ConditionNode {
    const left = this.parsePrimary(after);
    if (!this.isOp('<', '<=', '>', '>=')) return left;
    const opToken = this.tokens[this.pos++] as Token & { kind: 'op' };
    const right = this.parsePrimary(opToken);
    if (this.isOp('<', '<=', '>', '>=')) {
      fail(this.peek().start, `'${opToken.value}' cannot be chained: use && between comparisons (a < b && b < c)`);
    }
    return { type: 'binary', operator: opToken.value as BinaryOperator, left, right };
  }

  /** A literal, a variable or a parenthesised condition; `after` is the operator it is the right operand of. */
  private parsePrimary(after?: Token & { kind: 'op' }): ConditionNode {
    const t = this.peek();
    switch (t.kind) {
      case 'string':
      case 'number':
        this.pos++;
        return { type: 'literal', value: t.value };
      case 'path':
        this.pos++;
        return this.variable(t);
      case '(': {
        this.pos++;
        this.enter(t.start);
        const inner = this.parseOr();
        this.depth--;
        const close = this.peek();
        if (close.kind === 'eof') fail(close.start, `expected ')' to close the '(' at column ${t.start + 1}, but the condition ended`);
        if (close.kind !== ')') this.unexpectedAfterValue(close, `')' to close the '(' at column ${t.start + 1}`);
        this.pos++;
        return inner;
      }
      case 'op':
        if (t.value === '!' && after) {
          fail(t.start, `'!' binds looser than '${after.value}', so it cannot start its operand: write (!x) in parentheses`);
        }
        return fail(t.start, `expected ${VALUE_EXPECTED}${after ? ` after '${after.value}'` : ''}, but found ${describe(t)}`);
      default:
        return fail(t.start, `expected ${VALUE_EXPECTED}${after ? ` after '${after.value}'` : ''}, but found ${describe(t)}`);
    }
  }

  private variable(t: Token & { kind: 'path' }): LiteralNode | PortNode | FieldNode {
    const [head, ...rest] = t.segments;
    const name = t.segments.join('.');
    switch (head) {
      case 'true':
      case 'false':
      case 'null':
      case 'nil':
        if (rest.length) fail(t.start, `'${head}' is a literal and has no fields`);
        return { type: 'literal', value: head === 'true' ? true : head === 'false' ? false : null };
      case 'port':
        if (rest.length) fail(t.start, `'port' is the port name (a string) and has no fields: '${name}'`);
        return { type: 'port', spelling: 'port' };
      case 'output':
        if (rest.length === 0) return { type: 'port', spelling: 'output' };
        if (rest.length === 1 && rest[0] === 'name') return { type: 'port', spelling: 'output.name' };
        return { type: 'field', root: 'output', spelling: 'output', path: rest };
      case 'packet':
        return { type: 'field', root: 'output', spelling: 'packet', path: rest };
      case 'input':
        return { type: 'field', root: 'input', spelling: 'input', path: rest };
      case 'meta':
        if (this.options.payload) return fail(t.start, `unknown variable 'meta'; an event filter reads the event with payload.<path>`);
        return { type: 'field', root: 'meta', spelling: 'meta', path: rest };
      case 'payload':
        if (this.options.payload) return { type: 'field', root: 'output', spelling: 'payload', path: rest };
        return fail(t.start, `unknown variable 'payload'; payload.<path> is for event filters; in an edge condition use packet.<path>`);
      default: {
        const hint = KEYWORD_HINTS[head] ? `; ${KEYWORD_HINTS[head]}` : /^(True|False|TRUE|FALSE|Null|NULL|None|undefined)$/.test(head) ? '; literals are lower case: true, false, null' : '';
        return fail(t.start, `unknown variable '${head}'${hint}; a value is one of port, output, output.<path>, packet.<path>, input.<path>, meta.<path>, a quoted string, a number, true, false or null`);
      }
    }
  }
}

/** Parses a condition to its tree; never throws (a malformed source yields `{ok: false, error}`). */
/** Variants of the language. */
export interface ConditionParseOptions {
  /**
   * Event filters (`x-event-filter` of subscriber deployments): `payload.<path>` reads the event
   * payload (evaluated as the `output` packet).
   */
  payload?: boolean;
}

export function parseCondition(source: string, options: ConditionParseOptions = {}): ConditionParseResult {
  try {
    if (typeof source !== 'string') return failure(0, `condition must be a string, got ${typeof source}`);
    if (source.length > MAX_CONDITION_LENGTH) return failure(MAX_CONDITION_LENGTH, `condition is longer than ${MAX_CONDITION_LENGTH} characters`);
    const tokens = tokenize(source);
    if (tokens.length === 1) return failure(0, `empty condition: expected ${VALUE_EXPECTED}`);
    return { ok: true, ast: new Parser(tokens, options).parse() };
  } catch (e) {
    if (e instanceof SyntaxFailure) return failure(e.offset, e.detail);
    return failure(0, 'condition could not be parsed');
  }
}

function failure(offset: number, detail: string): ConditionParseResult {
  const column = offset + 1;
  return { ok: false, error: { message: `condition syntax error at column ${column}: ${detail}`, offset, column } };
}
