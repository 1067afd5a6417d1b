import autocannon from 'autocannon';
import i18next from 'i18next';
import { TranslationService } from '@flowplane/i18n';
import { type Standalone, startStandalone } from '../apps/standalone/src/standalone';
import type { BenchResult } from './bench-result';
import { relaunchedUnderPlatformFlags } from './platform-flags';

/**
 * Issue 18, Performance. In process: cached Translate (`translateCached`, the synchronous hit that
 * hot callers use; the awaited `translate` is reported beside it) without interpolation and with a
 * compiled, cached template, beside i18next's `t()` on the same keys and values (goals: 10x and 2x its ops/s)
 * and a bare Map lookup of the same chain (the limit). Through the gateway (autocannon, 50
 * connections): `GET /i18n/messages` of a 2,000-key catalog, 200 and 304, beside the gateway's
 * healthz (goal for 304: at least 0.5x). The platform runs in this process, so both sides of every
 * ratio share the CPU alike.
 */

const OPS = Number(process.env.I18N_BENCH_OPS ?? 1_000_000);
const KEYS = 2_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

const key = (i: number) => `page.section${i % 20}.label${i}`;

async function rate(ops: number, fn: (i: number) => Promise<string> | string): Promise<number> {
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) sink += (await fn(i)).length > 0 ? 1 : 0;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (sink !== ops) throw new Error(`bench sink ${sink} != ${ops}`);
  return ops / seconds;
}

function rateSync(ops: number, fn: (i: number) => string): number {
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) sink += fn(i).length > 0 ? 1 : 0;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (sink !== ops) throw new Error(`bench sink ${sink} != ${ops}`);
  return ops / seconds;
}

function http(opts: autocannon.Options): Promise<{ rps: number; statuses: Record<string, number> }> {
  return new Promise((resolve, reject) =>
    autocannon({ connections: 50, pipelining: 1, duration: SECONDS, ...opts }, (err, res) =>
      err ? reject(err) : resolve({ rps: res.requests.average, statuses: { '2xx': res['2xx'], non2xx: res.non2xx } }),
    ),
  );
}

const best = async (f: () => Promise<number> | number): Promise<number> => Math.max(await f(), await f(), await f());

export async function run(): Promise<BenchResult[]> {
  const platform: Standalone = await startStandalone({
    env: { ...process.env, PORT: '0', STORE: 'memory', AUTH_JWT_SECRET: 'bench-secret-0123456789abcdef', LOG_LEVEL: 'warn', GATEWAY_RATE_LIMIT: '0' },
  });
  try {
    const i18n = platform.services.find((s) => s.name === 'i18n')!;
    const t = i18n.app.get(TranslationService);
    // pl (requested) holds every other key; the rest fall back to en: both chain links are exercised.
    const en: Record<string, string> = {};
    const pl: Record<string, string> = {};
    for (let i = 0; i < KEYS; i++) {
      en[key(i)] = `Label number ${i}`;
      await t.upsert('', key(i), 'en', en[key(i)]);
      if (i % 2 === 0) {
        pl[key(i)] = `Etykieta numer ${i}`;
        await t.upsert('', key(i), 'pl', pl[key(i)]);
      }
    }
    await t.upsert('', 'greet', 'pl', 'Witaj {{.Name}}, masz {{.Count}} wiadomości');
    await i18next.init({
      lng: 'pl',
      fallbackLng: ['en'],
      resources: { en: { translation: { ...en } }, pl: { translation: { ...pl, greet: 'Witaj {{Name}}, masz {{Count}} wiadomości' } } },
      keySeparator: false,
      initAsync: false,
    });
    const chain = [new Map(Object.entries(pl)), new Map(Object.entries(en))];
    const bare = (i: number): string => {
      const k = key(i % KEYS);
      for (const m of chain) {
        const v = m.get(k);
        if (v !== undefined) return v;
      }
      return k;
    };
    // What callers on a hot path call (nodes, renderers): the synchronous cache hit, with the
    // promise API (`translate`) measured beside it for callers that await.
    const ours = (i: number) => t.translateCached('', key(i % KEYS), 'pl')!;
    const oursAsync = (i: number) => t.translate('', key(i % KEYS), 'pl');
    const theirs = (i: number) => i18next.t(key(i % KEYS));
    const args = { Name: 'Ann', Count: 3 };
    const oursTpl = (i: number) => t.translateCached('', 'greet', 'pl', { ...args, Count: i })!;
    const theirsTpl = (i: number) => i18next.t('greet', { ...args, Count: i });
    // Loads the buckets of the chain (the first call of a (namespace, locale) goes to the store).
    if ((await t.translate('', 'greet', 'pl', { ...args, Count: 3 })) !== theirsTpl(3)) throw new Error('interpolations differ');
    if (oursTpl(3) !== theirsTpl(3)) throw new Error(`interpolations differ: ${oursTpl(3)} / ${theirsTpl(3)}`);
    if (ours(1) !== i18next.t(key(1)) || ours(2) !== i18next.t(key(2))) throw new Error('lookups differ');

    rateSync(100_000, ours);
    await rate(100_000, oursAsync);
    rateSync(100_000, theirs);
    rateSync(100_000, bare);
    rateSync(50_000, oursTpl);
    rateSync(50_000, theirsTpl);
    const oursRate = await best(() => rateSync(OPS, ours));
    const oursAsyncRate = await best(() => rate(OPS, oursAsync));
    const i18nextRate = await best(() => rateSync(OPS, theirs));
    const bareRate = await best(() => rateSync(OPS, bare));
    const oursTplRate = await best(() => rateSync(OPS / 4, oursTpl));
    const i18nextTplRate = await best(() => rateSync(OPS / 4, theirsTpl));

    const url = `${platform.url}/api/v1/i18n/messages?locale=pl`;
    const first = await fetch(url);
    const etag = first.headers.get('etag')!;
    const size = (await first.text()).length;
    await http({ url, duration: 3 });
    const ok = await http({ url });
    const notModified = await http({ url, headers: { 'if-none-match': etag } });
    const health = await http({ url: `${platform.url}/healthz` });
    if (ok.statuses.non2xx || notModified.statuses['2xx']) throw new Error(`unexpected statuses: ${JSON.stringify({ ok, notModified })}`);

    const goal = (ratio: number, target: number) => `goal >= ${target}x: ${ratio >= target ? 'met' : 'MISSED'}`;
    return [
      {
        name: 'i18n: cached Translate (translateCached, no args) vs i18next t()',
        ours: oursRate,
        baseline: i18nextRate,
        unit: 'ops/s',
        ratio: oursRate / i18nextRate,
        notes: `${goal(oursRate / i18nextRate, 10)}; bare Map chain ${Math.round(bareRate)} ops/s (the limit); awaited translate() ${Math.round(oursAsyncRate)} ops/s (${(oursAsyncRate / i18nextRate).toFixed(2)}x); ${OPS} ops, best of 3`,
      },
      {
        name: 'i18n: cached Translate with a compiled template vs i18next t() with interpolation',
        ours: oursTplRate,
        baseline: i18nextTplRate,
        unit: 'ops/s',
        ratio: oursTplRate / i18nextTplRate,
        notes: `${goal(oursTplRate / i18nextTplRate, 2)}; ${OPS / 4} ops, best of 3`,
      },
      {
        name: `i18n: GET /i18n/messages (${KEYS} keys, ${size} bytes) 200 via gateway vs gateway healthz`,
        ours: ok.rps,
        baseline: health.rps,
        unit: 'req/s',
        ratio: ok.rps / health.rps,
        notes: `50 connections, ${SECONDS} s`,
      },
      {
        name: `i18n: GET /i18n/messages If-None-Match 304 via gateway vs gateway healthz`,
        ours: notModified.rps,
        baseline: health.rps,
        unit: 'req/s',
        ratio: notModified.rps / health.rps,
        notes: `${goal(notModified.rps / health.rps, 0.5)}; 50 connections, ${SECONDS} s`,
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
