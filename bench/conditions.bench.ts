import { compileCondition, compileConditionCached, type ConditionContext } from '@flowplane/flow/conditions';
import type { BenchResult } from './bench-result';

/**
 * Issue 4, Performance: evaluations/s of a compiled edge condition beside a hand-written JS closure
 * making the same checks on the same contexts in the same run. The target is 1,000,000 evals/s for
 * ours. Contexts vary (ports, scores, flags, a missing field, a numeric string) so neither side is
 * measured on one constant-folded input, and both sides must agree on every result.
 */

const EVALS = Number(process.env.CONDITIONS_BENCH_EVALS ?? 5_000_000);
const TARGET = 1_000_000;
const SOURCE = 'port == "ok" && output.score >= 0.5 || input.flags.force == true';

function contexts(n: number): ConditionContext[] {
  const out: ConditionContext[] = [];
  for (let i = 0; i < n; i++) {
    const score = i % 7 === 0 ? String((i % 10) / 10) : (i % 10) / 10;
    out.push({
      port: i % 3 === 0 ? 'error' : 'ok',
      output: i % 11 === 0 ? { text: 'no score' } : { score, text: `reply ${i}` },
      input: { flags: { force: i % 5 === 0 }, user: { id: `u${i}` } },
    });
  }
  return out;
}

/**
 * The baseline: what a developer would write by hand for the same condition, including the numeric
 * string the language auto-parses, but no protection against hostile packets.
 */
function handWritten(ctx: ConditionContext): boolean {
  const output = ctx.output as { score?: unknown } | null;
  const input = ctx.input as { flags?: { force?: unknown } } | null;
  const score = output?.score;
  const n = typeof score === 'string' ? Number(score) : score;
  return (ctx.port === 'ok' && typeof n === 'number' && n >= 0.5) || input?.flags?.force === true;
}

/** Evals/s of `test` over the contexts, `evals` calls; returns the rate and the count of true results. */
function rate(evals: number, ctxs: ConditionContext[], test: (ctx: ConditionContext) => boolean): { rate: number; trues: number } {
  const mask = ctxs.length - 1;
  let trues = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < evals; i++) if (test(ctxs[i & mask])) trues++;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { rate: evals / seconds, trues };
}

/** Runs the conditions benchmark; best of three runs each, after a warm-up. */
export async function run(): Promise<BenchResult[]> {
  const ctxs = contexts(1024); // a power of two, indexed with a mask
  const compiled = compileCondition(SOURCE);
  if (compiled.parseError) throw new Error(compiled.parseError);
  for (const ctx of ctxs) {
    if (compiled.evaluate(ctx).value !== handWritten(ctx)) throw new Error(`bench sides disagree on ${JSON.stringify(ctx)}`);
  }

  const ours = (ctx: ConditionContext): boolean => compiled.evaluate(ctx).value;
  const viaCache = (ctx: ConditionContext): boolean => compileConditionCached(SOURCE).evaluate(ctx).value;
  const best = (f: (ctx: ConditionContext) => boolean): number => {
    rate(200_000, ctxs, f);
    const runs = [rate(EVALS, ctxs, f), rate(EVALS, ctxs, f), rate(EVALS, ctxs, f)];
    return Math.max(...runs.map((r) => r.rate));
  };
  const expectedTrues = rate(EVALS, ctxs, handWritten).trues;
  if (rate(EVALS, ctxs, ours).trues !== expectedTrues) throw new Error('compiled condition disagrees with the baseline');

  const baseline = best(handWritten);
  const oursRate = best(ours);
  const cachedRate = best(viaCache);
  const row = (name: string, value: number): BenchResult => ({
    name,
    ours: Math.round(value),
    baseline: Math.round(baseline),
    unit: 'evals/s',
    ratio: Number((value / baseline).toFixed(3)),
    notes: `target >= ${TARGET} evals/s: ${value >= TARGET ? 'met' : 'MISSED'}; ${EVALS} evals per round over ${ctxs.length} contexts, best of 3`,
  });
  return [
    row(`conditions: compiled \`${SOURCE}\` vs hand-written closure`, oursRate),
    row('conditions: compileConditionCached lookup + evaluate vs hand-written closure', cachedRate),
  ];
}

if (require.main === module) {
  run()
    .then((results) => {
      for (const r of results) {
        console.log(`${r.name}: ours ${r.ours} ${r.unit}, hand-written ${r.baseline} ${r.unit}, ratio ${r.ratio} (${r.notes})`);
      }
      console.log(JSON.stringify(results, null, 2));
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
