import { IntlMessageFormat } from 'intl-messageformat';
import { createTranslator } from '@flowplane/client';
import type { BenchResult } from './bench-result';

/**
 * Performance: `$t` with plural formatting (a catalog lookup, the compiled-message cache, filling
 * the plural) in calls/s beside intl-messageformat used directly, in the same run. The baseline is
 * a pre-compiled IntlMessageFormat instance's format() (what a careful app writes by hand), not a
 * new instance per call. Goal: ours ≥ 0.8× the baseline. Counts vary so every plural branch runs.
 */

const OPS = Number(process.env.CLIENT_T_BENCH_OPS ?? 200_000);
/** Interleaved rounds; the best of each side counts (the machine may be busy with other work). */
const ROUNDS = 5;
const GOAL = 0.8;
const LOCALE = 'pl';
const TEXT = '{count, plural, =0 {Brak plików w {folder}} one {# plik w {folder}} few {# pliki w {folder}} many {# plików w {folder}} other {# pliku w {folder}}}';

/** Calls/s of `format` over `ops` calls with counts 0…99, and a checksum so nothing is optimized away. */
function rate(ops: number, format: (params: { count: number; folder: string }) => string): { rate: number; sum: number } {
  const params = Array.from({ length: 128 }, (_, i) => ({ count: i % 100, folder: 'Inbox' }));
  let sum = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) sum += format(params[i & 127]).length;
  return { rate: ops / (Number(process.hrtime.bigint() - started) / 1e9), sum };
}

/** Runs the `$t` benchmark; best of ROUNDS runs each, after a warm-up, the two sides interleaved. */
export async function run(): Promise<BenchResult[]> {
  const translator = createTranslator({
    baseUrl: 'http://bench.invalid',
    locale: LOCALE,
    fetch: async () => ({ status: 200, ok: true, headers: { get: () => null }, json: async () => ({ locale: LOCALE, namespace: '', messages: { 'files.count': TEXT } }) }),
  });
  await translator.load();
  const compiled = new IntlMessageFormat(TEXT, LOCALE, undefined, { ignoreTag: true });
  const ours = (p: { count: number; folder: string }) => translator.t('files.count', 'Files', p);
  const baseline = (p: { count: number; folder: string }) => compiled.format(p) as string;
  for (let count = 0; count < 100; count++) {
    if (ours({ count, folder: 'Inbox' }) !== baseline({ count, folder: 'Inbox' })) throw new Error(`bench sides disagree on count ${count}`);
  }

  rate(Math.min(OPS, 50_000), ours);
  rate(Math.min(OPS, 50_000), baseline);
  let best = { ours: 0, baseline: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const b = rate(OPS, baseline);
    const o = rate(OPS, ours);
    if (o.sum !== b.sum) throw new Error('bench sides produced different text');
    best = { ours: Math.max(best.ours, o.rate), baseline: Math.max(best.baseline, b.rate) };
  }
  const ratio = best.ours / best.baseline;
  process.stdout.write(`$t plural (pl): ${Math.round(best.ours)} calls/s; pre-compiled IntlMessageFormat.format: ${Math.round(best.baseline)} calls/s; ratio ${ratio.toFixed(2)} (goal ≥ ${GOAL})\n`);
  return [
    {
      name: `client $t plural formatting (pl), vs a pre-compiled IntlMessageFormat`,
      ours: best.ours,
      baseline: best.baseline,
      unit: 'calls/s',
      ratio,
      notes: `goal ≥ ${GOAL}; ${OPS} calls per round, best of ${ROUNDS}`,
    },
  ];
}
