/**
 * Execution check of a Go template against its data, run before `@ctrl/golang-template` renders it.
 *
 * The engine renders every execution error as empty text (an index out of range, a field taken of a
 * string, a field taken through a key the data lacks), so "Hi {{index .List 5}}" would show "Hi " where
 * catalog rule 5 wants the raw string. The engine exposes no syntax tree, so the template's actions
 * are read here with the engine's own grammar (called only on texts the engine compiled, so every
 * tag is one it accepts) and walked with the data the way Go's `text/template` evaluates them:
 *
 * - a key missing from a map renders the zero value (rule 5); an argument the caller did not pass
 *   renders the zero value wherever it is used, also through a chain (`.User.Name` without `User`);
 * - a further field of a missing nested key or of `null` is an error (Go: "nil pointer evaluating"),
 *   and so is a field of a string, number, boolean or list ("can't evaluate field");
 * - `index` of a list needs an integer in range, of a map a string key; `range` takes a list (or
 *   nothing), `join` a list; the branch an `if`/`with` does not take is not evaluated, as in Go.
 */

type Path = readonly string[];

type Action =
  | { kind: 'field'; path: Path }
  | { kind: 'join'; path: Path }
  | { kind: 'index'; path: Path; key: string | number }
  | { kind: 'if'; op: 'var' | 'not' | 'and' | 'or'; paths: Path[]; then: Action[]; else: Action[] }
  | { kind: 'with'; path: Path; then: Action[]; else: Action[] }
  | { kind: 'range'; path: Path; body: Action[] };

/** Checks `args` against a compiled template: why rendering would fail, or undefined when it works. */
export type TemplateCheck = (args: Readonly<Record<string, unknown>>) => string | undefined;

/** An argument the caller did not pass, carried down a chain of fields as the zero value. */
const ABSENT = Symbol('absent argument');

class Failure {
  constructor(readonly reason: string) {}
}

function parsePath(dotPath: string): string[] {
  return dotPath.slice(1).split('.').filter((s) => s.length > 0);
}

function tags(template: string): string[] {
  const out: string[] = [];
  let pos = 0;
  for (;;) {
    const open = template.indexOf('{{', pos);
    if (open === -1) return out;
    const close = template.indexOf('}}', open + 2);
    if (close === -1) return out;
    out.push(template.slice(open + 2, close).trim());
    pos = close + 2;
  }
}

/** The template's actions, read as `@ctrl/golang-template` 2.x reads its tags. */
function actions(template: string): Action[] {
  const root: Action[] = [];
  const stack: Action[][] = [root];
  const blocks: (Extract<Action, { kind: 'if' | 'with' | 'range' }>)[] = [];
  const current = (): Action[] => stack[stack.length - 1];
  const open = (node: Extract<Action, { kind: 'if' | 'with' | 'range' }>, into: Action[]): void => {
    current().push(node);
    blocks.push(node);
    stack.push(into);
  };
  for (const tag of tags(template)) {
    if (tag === '.') continue;
    if (tag === 'else') {
      const block = blocks[blocks.length - 1];
      stack.pop();
      if (block && block.kind !== 'range') stack.push(block.else);
    } else if (tag === 'end') {
      stack.pop();
      blocks.pop();
    } else if (tag.startsWith('if ')) {
      const rest = tag.slice(3).trim();
      const op = rest.startsWith('and ') ? 'and' : rest.startsWith('or ') ? 'or' : rest.startsWith('not ') ? 'not' : 'var';
      const operands = op === 'var' ? rest : rest.slice(op.length + 1).trim();
      const paths = op === 'and' || op === 'or' ? operands.split(' ').filter((s) => s.length > 0).map(parsePath) : [parsePath(operands)];
      const node: Action = { kind: 'if', op, paths, then: [], else: [] };
      open(node, node.then);
    } else if (tag.startsWith('with ')) {
      const node: Action = { kind: 'with', path: parsePath(tag.slice(5).trim()), then: [], else: [] };
      open(node, node.then);
    } else if (tag.startsWith('range ')) {
      const node: Action = { kind: 'range', path: parsePath(tag.slice(6).trim()), body: [] };
      open(node, node.body);
    } else if (tag.startsWith('join ') || tag.startsWith('re_replace ')) {
      const rest = tag.slice(tag.indexOf(' ') + 1);
      const path = parsePath(rest.slice(0, rest.indexOf(' ')));
      current().push(tag.startsWith('join ') ? { kind: 'join', path } : { kind: 'field', path });
    } else if (tag.startsWith('index ')) {
      const rest = tag.slice(6);
      const space = rest.indexOf(' ');
      const keyText = rest.slice(space + 1).trim();
      const key = keyText.startsWith('"') ? keyText.slice(1, -1) : Number.parseInt(keyText, 10);
      current().push({ kind: 'index', path: parsePath(rest.slice(0, space)), key });
    } else if (tag.startsWith('.')) {
      current().push({ kind: 'field', path: parsePath(tag) });
    }
  }
  return root;
}

/** Whether any action can fail: only fields read one level deep from the arguments cannot. */
function canFail(nodes: readonly Action[]): boolean {
  return nodes.some((n) =>
    n.kind === 'field' ? n.path.length > 1 : n.kind === 'if' ? n.paths.some((p) => p.length > 1) || canFail(n.then) || canFail(n.else) : true,
  );
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function own(map: Record<string, unknown>, key: string): unknown {
  const d = Object.getOwnPropertyDescriptor(map, key);
  return d && 'value' in d ? d.value : undefined;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return `a ${typeof v}`;
}

/** The value at `path` from `dot`; `ABSENT` when the chain starts at an argument not passed. */
function resolve(dot: unknown, path: Path, atRoot: boolean): unknown {
  let cur = dot;
  for (let i = 0; i < path.length; i++) {
    if (cur === ABSENT) return ABSENT;
    if (isMap(cur)) {
      cur = own(cur, path[i]);
      if (cur === undefined && atRoot && i === 0) cur = ABSENT;
      continue;
    }
    const taken = `.${path.slice(0, i).join('.')}`;
    if (cur === undefined) return new Failure(`field ${path[i]} of ${taken}, which the data lacks`);
    return new Failure(`field ${path[i]} of ${taken}, which is ${describe(cur)}`);
  }
  return cur;
}

/** The engine's truthiness, so the check follows the branch the engine renders. */
function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === ABSENT) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

function run(nodes: readonly Action[], dot: unknown, atRoot: boolean): string | undefined {
  for (const n of nodes) {
    const value = n.kind === 'if' ? undefined : resolve(dot, n.path, atRoot);
    if (value instanceof Failure) return value.reason;
    const where = n.kind === 'if' ? '' : `.${n.path.join('.')}`;
    switch (n.kind) {
      case 'field':
        break;
      case 'join':
        if (value !== undefined && value !== null && value !== ABSENT && !Array.isArray(value)) return `join of ${where}, which is ${describe(value)}`;
        break;
      case 'index': {
        if (value === ABSENT) break;
        if (Array.isArray(value)) {
          if (typeof n.key !== 'number') return `index "${n.key}" of ${where}, which is a list`;
          if (n.key < 0 || n.key >= value.length) return `index ${n.key} out of range of ${where} (length ${value.length})`;
        } else if (isMap(value)) {
          if (typeof n.key !== 'string') return `index ${n.key} of ${where}, which is a map (keys are strings)`;
        } else {
          return `index of ${where}, which is ${value === undefined ? 'missing' : describe(value)}`;
        }
        break;
      }
      case 'if': {
        const values = n.paths.map((p) => resolve(dot, p, atRoot));
        const failed = values.find((v): v is Failure => v instanceof Failure);
        if (failed) return failed.reason;
        const taken = n.op === 'and' ? values.every(truthy) : n.op === 'or' ? values.some(truthy) : n.op === 'not' ? !truthy(values[0]) : truthy(values[0]);
        const reason = run(taken ? n.then : n.else, dot, atRoot);
        if (reason) return reason;
        break;
      }
      case 'with': {
        const reason = truthy(value) ? run(n.then, value, false) : run(n.else, dot, atRoot);
        if (reason) return reason;
        break;
      }
      case 'range': {
        if (value === undefined || value === null || value === ABSENT) break;
        if (!Array.isArray(value)) return `range over ${where}, which is ${describe(value)} (a list is needed)`;
        for (const item of value) {
          const reason = run(n.body, item, false);
          if (reason) return reason;
        }
        break;
      }
    }
  }
  return undefined;
}

/**
 * The check of a template the engine compiled, or undefined when no action of it can fail (fields
 * read one level deep from the arguments): then rendering pays nothing for it.
 */
export function templateCheck(template: string): TemplateCheck | undefined {
  const nodes = actions(template);
  if (!canFail(nodes)) return undefined;
  return (args) => run(nodes, args, true);
}
