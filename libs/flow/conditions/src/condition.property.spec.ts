import fc from 'fast-check';
import { compileCondition, type ConditionContext, parseCondition, printCondition } from './index';

/**
 * Properties: the parser never throws on any string, evaluation never throws on any packet (plain
 * data of every kind fast-check makes, and hostile objects: throwing getters, throwing or revoked
 * proxies, cycles), valid sources always parse and print back to the same tree, and the operators
 * keep their algebra (symmetry, negation, mirrored ordering).
 */

const KEYS = ['a', 'b', 'flag', 'items', 'name', 'score', '0', '1'] as const;

/** Source fragments that exercise every tokenizer and parser branch when shuffled together. */
const FRAGMENTS = [
  'port', 'output', 'packet', 'input', '.', 'name', 'items', '0', 'a', '"', "'", '\\', '\\u00', '(', ')', '!', '=', '==', '!=',
  '&&', '||', '&', '|', '<', '<=', '>', '>=', '-', '1', '1.5', 'e', '1e', '1e3', 'true', 'false', 'null', 'nil', ' ', '\n',
  '+', '*', '[', ']', ',', 'f(', 'and', '?', '#', '\u00e9', '\ud800',
];

const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }).map((parts) => parts.join('')),
  fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }).map((parts) => parts.join(' ')),
);

const ws = fc.constantFrom('', ' ', '  ', '\t', '\n');

const stringLiteral = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.string({ maxLength: 12 }).map((s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`),
  fc.constantFrom('"10"', "'9'", '" 7 "', '"1.0"', '"abc"', '""', '"true"'),
);
const numberLiteral = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((n) => (Object.is(n, -0) ? '-0' : String(n))),
);
const variable = fc.oneof(
  fc.constantFrom('port', 'output', 'output.name', 'packet', 'input'),
  fc
    .tuple(fc.constantFrom('output', 'packet', 'input'), fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 4 }))
    .map(([root, path]) => [root, ...path].join('.')),
);
const value = fc.oneof(variable, stringLiteral, numberLiteral, fc.constantFrom('true', 'false', 'null', 'nil'));

/** Valid conditions straight from the grammar in condition.parser.ts, with random spacing. */
const { condition } = fc.letrec<{ condition: string; and: string; not: string; equality: string; comparison: string; primary: string }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('and'),
    fc.array(tie('and'), { minLength: 2, maxLength: 3 }).chain((parts) => ws.map((w) => parts.join(`${w}||${w}`))),
  ),
  and: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('not'),
    fc.array(tie('not'), { minLength: 2, maxLength: 3 }).chain((parts) => ws.map((w) => parts.join(`${w}&&${w}`))),
  ),
  not: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('equality'), fc.tuple(ws, tie('not')).map(([w, n]) => `!${w}${n}`)),
  equality: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('comparison'),
    fc.tuple(tie('comparison'), fc.constantFrom('==', '!='), tie('comparison'), ws).map(([l, op, r, w]) => `${l}${w}${op}${w}${r}`),
  ),
  comparison: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('primary'),
    fc.tuple(tie('primary'), fc.constantFrom('<', '<=', '>', '>='), tie('primary'), ws).map(([l, op, r, w]) => `${l}${w}${op} ${r}`),
  ),
  primary: fc.oneof(
    { depthSize: 'small', withCrossShrink: true, maxDepth: 4 },
    value,
    tie('condition').map((c) => `(${c})`),
  ),
}));

const FIXED = [
  'port == "ok" && output.score >= 0.5 || input.flags.force == true',
  'packet.x == null',
  '!port == "Error"',
  'output.items.0.a > "3" && !(input.name != nil)',
  'output.flag',
  'packet.a.b.0.name <= -1.5 || output.score < input.score',
  'true',
];

const options = { withBigInt: true, withBoxedValues: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withTypedArray: true };

/** Plain data of every kind, biased so that the generated paths find fields. */
const plain: fc.Arbitrary<unknown> = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.anything(options),
    fc.dictionary(fc.constantFrom(...KEYS), tie('tree'), { maxKeys: 5 }),
    fc.array(tie('tree'), { maxLength: 3 }),
  ),
})).tree;

const explode = (): never => {
  throw new Error('hostile');
};

/**
 * Hostile values: throwing getters (throwing anything, not only errors), throwing, revoked or lying
 * proxies, cycles. fast-check inspects the values it generates, so it generates a recipe and the
 * property builds the hostile object from it.
 */
type Recipe =
  | { t: 'plain'; v: unknown }
  | { t: 'getter'; obj: Record<string, Recipe>; key: string; thrown: unknown }
  | { t: 'proxy'; target: Recipe; traps: ('get' | 'getOwnPropertyDescriptor' | 'has' | 'getPrototypeOf' | 'ownKeys')[] }
  | { t: 'revoked' }
  | { t: 'lying-array'; items: Recipe[] }
  | { t: 'cycle'; inner: Recipe };

const recipe: fc.Arbitrary<Recipe> = fc.letrec<{ tree: Recipe }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    plain.map((v): Recipe => ({ t: 'plain', v })),
    fc
      .tuple(fc.dictionary(fc.constantFrom(...KEYS), tie('tree'), { maxKeys: 4 }), fc.constantFrom(...KEYS), fc.anything())
      .map(([obj, key, thrown]): Recipe => ({ t: 'getter', obj, key, thrown })),
    fc
      .tuple(tie('tree'), fc.subarray(['get', 'getOwnPropertyDescriptor', 'has', 'getPrototypeOf', 'ownKeys'] as const))
      .map(([target, traps]): Recipe => ({ t: 'proxy', target, traps })),
    fc.constant<Recipe>({ t: 'revoked' }),
    fc.array(tie('tree'), { maxLength: 3 }).map((items): Recipe => ({ t: 'lying-array', items })),
    tie('tree').map((inner): Recipe => ({ t: 'cycle', inner })),
  ),
})).tree;

function build(r: Recipe): unknown {
  switch (r.t) {
    case 'plain':
      return r.v;
    case 'getter': {
      const obj: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r.obj)) obj[k] = build(v);
      return Object.defineProperty(obj, r.key, {
        enumerable: true,
        get() {
          throw r.thrown;
        },
      });
    }
    case 'proxy': {
      const target = build(r.target);
      const handler: ProxyHandler<object> = {};
      for (const trap of r.traps) handler[trap] = explode;
      return new Proxy(typeof target === 'object' && target !== null ? target : {}, handler);
    }
    case 'revoked': {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }
    case 'lying-array':
      return new Proxy(r.items.map(build), { get: (t, k) => (k === '0' ? explode() : Reflect.get(t, k)) });
    case 'cycle': {
      const inner = build(r.inner);
      const cyclic: Record<string, unknown> = { a: inner };
      cyclic.b = cyclic;
      cyclic.items = [cyclic, inner];
      return cyclic;
    }
  }
}

const context = (packet: fc.Arbitrary<unknown>): fc.Arbitrary<ConditionContext> =>
  fc.record({ port: fc.oneof(fc.constantFrom('ok', 'Error', 'Sent'), fc.string()), output: packet, input: packet });

describe('condition language properties', () => {
  it('the parser never throws on arbitrary strings: it returns a positioned error instead', () => {
    fc.assert(
      fc.property(anyString, (source) => {
        const parsed = parseCondition(source);
        if (parsed.ok) return;
        expect(typeof parsed.error.message).toBe('string');
        expect(parsed.error.offset).toBeGreaterThanOrEqual(0);
        expect(parsed.error.offset).toBeLessThanOrEqual(source.length);
        expect(parsed.error.column).toBe(parsed.error.offset + 1);
      }),
      { numRuns: 3000 },
    );
  });

  it('compileCondition never throws on arbitrary strings, and a parse failure evaluates to false with the error', () => {
    fc.assert(
      fc.property(anyString, context(plain), (source, ctx) => {
        const compiled = compileCondition(source);
        const result = compiled.evaluate(ctx);
        expect(typeof result.value).toBe('boolean');
        if (compiled.parseError) expect(result).toEqual({ value: false, error: compiled.parseError });
      }),
      { numRuns: 2000 },
    );
  });

  it('generated valid conditions always parse, and print back to the same tree', () => {
    fc.assert(
      fc.property(condition, (source) => {
        const parsed = parseCondition(source);
        if (!parsed.ok) throw new Error(`${source}: ${parsed.error.message}`);
        const reparsed = parseCondition(printCondition(parsed.ast));
        expect(reparsed).toEqual(parsed);
      }),
      { numRuns: 1000 },
    );
  });

  it('evaluation never throws and reports no error on arbitrary plain packets (fixed and generated conditions)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...FIXED), condition), context(plain), (source, ctx) => {
        const result = compileCondition(source).evaluate(ctx);
        expect(typeof result.value).toBe('boolean');
        expect(result.error).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('evaluation never throws on hostile packets: a throwing getter or proxy makes it false with an error', () => {
    let errors = 0;
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...FIXED), condition), fc.anything(), recipe, recipe, (source, port, output, input) => {
        const result = compileCondition(source).evaluate({ port: port as string, output: build(output), input: build(input) });
        expect(typeof result.value).toBe('boolean');
        if (result.error !== undefined) {
          errors++;
          expect(result.value).toBe(false);
          expect(typeof result.error).toBe('string');
        }
      }),
      { numRuns: 2000 },
    );
    // The generator does reach the traps: some evaluations failed (and were reported, not thrown).
    expect(errors).toBeGreaterThan(0);
  });

  it('evaluation is deterministic: the same context gives the same result', () => {
    fc.assert(
      fc.property(condition, context(plain), (source, ctx) => {
        const compiled = compileCondition(source);
        expect(compiled.evaluate(ctx)).toEqual(compiled.evaluate(ctx));
      }),
    );
  });

  describe('operator algebra over every kind of value', () => {
    const operand = fc.oneof(value, fc.constantFrom('output.a', 'input.a', 'output.items.0'));
    const ctx = context(plain);
    const test = (source: string, c: ConditionContext): boolean => {
      const result = compileCondition(source).evaluate(c);
      expect(result.error).toBeUndefined();
      return result.value;
    };

    it('== is symmetric and != is its negation', () => {
      fc.assert(
        fc.property(operand, operand, ctx, (x, y, c) => {
          expect(test(`${x} == ${y}`, c)).toBe(test(`${y} == ${x}`, c));
          expect(test(`${x} != ${y}`, c)).toBe(!test(`${x} == ${y}`, c));
          expect(test(`!${x} == ${y}`, c)).toBe(test(`${x} != ${y}`, c));
        }),
        { numRuns: 1000 },
      );
    });

    it('ordering mirrors (a < b is b > a), is never contradictory, and agrees with equality', () => {
      fc.assert(
        fc.property(operand, operand, ctx, (x, y, c) => {
          expect(test(`${x} < ${y}`, c)).toBe(test(`${y} > ${x}`, c));
          expect(test(`${x} <= ${y}`, c)).toBe(test(`${y} >= ${x}`, c));
          expect(test(`${x} < ${y} && ${x} >= ${y}`, c)).toBe(false);
          expect(test(`${x} > ${y} && ${x} <= ${y}`, c)).toBe(false);
          // Ordered both ways means equal: the auto-parse of ordering and of equality agree.
          if (test(`${x} <= ${y}`, c) && test(`${x} >= ${y}`, c)) expect(test(`${x} == ${y}`, c)).toBe(true);
        }),
        { numRuns: 1000 },
      );
    });

    it('numbers compare exactly as JavaScript numbers do, also when one side is a numeric string', () => {
      fc.assert(
        fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ noNaN: true, noDefaultInfinity: true }), (a, b) => {
          const c: ConditionContext = { port: 'p', output: { a, s: String(a) }, input: { b } };
          expect(test('output.a < input.b', c)).toBe(a < b);
          expect(test('output.s < input.b', c)).toBe(a < b);
          expect(test('output.a == input.b', c)).toBe(a === b);
          expect(test('output.s == input.b', c)).toBe(a === b);
        }),
        { numRuns: 1000 },
      );
    });
  });
});
