import autocannon from 'autocannon';
import { projectFragment } from '../libs/i18n/src/content/domain/fragment';
import { contentChain } from '../libs/i18n/src/content/domain/localized-text';
import { PutPageUseCase } from '../libs/i18n/src/content/use-cases/page-writes.use-case';
import type { SettingLookup } from '../libs/i18n/src/tokens/settings-tokens';
import { type Standalone, startStandalone } from '../apps/standalone/src/standalone';
import type { BenchResult } from './bench-result';
import { relaunchedUnderPlatformFlags } from './platform-flags';

/**
 * Issue 20, Performance. Through the gateway (autocannon, 50 connections): `GET /pages/{slug}` of a
 * page with settings tokens in its title and body, in the request locale, beside the gateway's
 * healthz (goal: at least 0.5x). In process: the projection of a fragment with 1,000 marked leaves
 * (locale chain, token expansion, a copy) beside a plain `structuredClone` of it (goal: p99 at most
 * 1 ms). The platform runs in this process, so both sides of every ratio share the CPU alike.
 */

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const LEAVES = 1_000;
const ROUNDS = Number(process.env.CONTENT_BENCH_ROUNDS ?? 20_000);

function http(opts: autocannon.Options): Promise<{ rps: number; non2xx: number }> {
  return new Promise((resolve, reject) =>
    autocannon({ connections: 50, pipelining: 1, duration: SECONDS, ...opts }, (err, res) => (err ? reject(err) : resolve({ rps: res.requests.average, non2xx: res.non2xx }))),
  );
}

/** Ops/s and latency percentiles (ms) of `fn` over `rounds` calls, each timed. */
function timed(rounds: number, fn: () => unknown): { rate: number; p50: number; p99: number } {
  const samples = new Float64Array(rounds);
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    sink += fn() ? 1 : 0;
    samples[i] = Number(process.hrtime.bigint() - t) / 1e6;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (sink !== rounds) throw new Error(`bench sink ${sink} != ${rounds}`);
  samples.sort();
  return { rate: rounds / seconds, p50: samples[Math.floor(rounds * 0.5)], p99: samples[Math.floor(rounds * 0.99)] };
}

/** A menu-like fragment: 100 sections of 10 links, each link a marked label in three locales (some with a token) beside plain fields. */
function fragmentWithMarkedLeaves(): unknown {
  return {
    sections: Array.from({ length: LEAVES / 10 }, (_, s) => ({
      id: `section-${s}`,
      links: Array.from({ length: 10 }, (_, l) => ({
        href: `/s${s}/l${l}`,
        order: l,
        label: { _i18n: { en: `Link ${s}.${l}${l === 0 ? ' of [[ site.name ]]' : ''}`, pl: `Łącze ${s}.${l}`, de: `Verweis ${s}.${l}` } },
      })),
    })),
  };
}

export async function run(): Promise<BenchResult[]> {
  // Projection first, before the platform shares the CPU.
  const data = fragmentWithMarkedLeaves();
  const lookup: SettingLookup = (m, k) => (m === 'site' && k === 'name' ? 'Acme' : undefined);
  const chain = contentChain('pl-PL', 'en');
  const project = () => projectFragment(data, chain, lookup);
  const clone = () => structuredClone(data);
  const projected = project() as { sections: Array<{ links: Array<{ label: string }> }> };
  if (projected.sections[3].links[2].label !== 'Łącze 3.2') throw new Error('projection picked the wrong text');
  timed(2_000, project);
  timed(2_000, clone);
  const ours = timed(ROUNDS, project);
  const base = timed(ROUNDS, clone);

  const platform: Standalone = await startStandalone({
    env: { ...process.env, PORT: '0', STORE: 'memory', AUTH_JWT_SECRET: 'bench-secret-0123456789abcdef', LOG_LEVEL: 'warn', GATEWAY_RATE_LIMIT: '0' },
  });
  try {
    const i18n = platform.services.find((s) => s.name === 'i18n')!;
    await i18n.app.get(PutPageUseCase).execute('about', {
      title: { en: 'About [[ site.name ]]', pl: 'O firmie [[ site.name ]]' },
      body: { en: `<h1>About [[ site.name ]]</h1>${'<p>We rent bikes and scooters in the city centre.</p>'.repeat(20)}`, pl: `<h1>O [[ site.name ]]</h1>${'<p>Wypożyczamy rowery i hulajnogi w centrum miasta.</p>'.repeat(20)}` },
      seo: { description: { en: 'About [[ site.name ]]', pl: 'O [[ site.name ]]' } },
    });
    const url = `${platform.url}/api/v1/pages/about?lang=pl-PL`;
    const first = await fetch(url);
    const size = (await first.text()).length;
    if (first.status !== 200) throw new Error(`page answered ${first.status}`);
    await http({ url, duration: 3 });
    const page = await http({ url });
    const health = await http({ url: `${platform.url}/healthz` });
    if (page.non2xx) throw new Error(`page answered ${page.non2xx} non-2xx`);

    const goal = (met: boolean, what: string) => `goal ${what}: ${met ? 'met' : 'MISSED'}`;
    return [
      {
        name: `content: GET /pages/{slug} (${size} bytes, tokens, pl-PL chain) via gateway vs gateway healthz`,
        ours: page.rps,
        baseline: health.rps,
        unit: 'req/s',
        ratio: page.rps / health.rps,
        notes: `${goal(page.rps / health.rps >= 0.5, '>= 0.5x')}; 50 connections, ${SECONDS} s`,
      },
      {
        name: `content: fragment projection (${LEAVES} marked leaves, chain and tokens, a copy) vs structuredClone`,
        ours: ours.rate,
        baseline: base.rate,
        unit: 'ops/s',
        ratio: ours.rate / base.rate,
        notes: `${goal(ours.p99 <= 1, 'p99 <= 1 ms')}; projection p50 ${ours.p50.toFixed(3)} ms, p99 ${ours.p99.toFixed(3)} ms; structuredClone p50 ${base.p50.toFixed(3)} ms, p99 ${base.p99.toFixed(3)} ms; ${ROUNDS} rounds`,
      },
    ];
  } finally {
    await platform.close();
  }
}

if (require.main === module && !relaunchedUnderPlatformFlags()) {
  run()
    .then((results) => {
      for (const r of results) console.log(`${r.name}: ours ${Math.round(r.ours)} ${r.unit}, baseline ${Math.round(r.baseline)} ${r.unit}, ratio ${r.ratio.toFixed(2)} (${r.notes})`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
