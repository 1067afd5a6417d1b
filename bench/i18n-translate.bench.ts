/**
 * Automatic translation benchmark: short catalog keys into 6 locales through the real
 * fill loop and engine (`POST /admin/i18n/translations/translate-missing` on a standalone
 * platform), the model an OpenAI-compatible HTTP stub (node:http) that answers
 * /v1/chat/completions after 100 ms with the JSON the engine asks for, for exactly the locales the
 * prompt names. Figures, each beside its baseline from the same run:
 *
 * - model calls per (key, locale) on 1,000 distinct keys (goal <= 0.2) beside one call per cell;
 * - wall time with AI_CONCURRENCY=4 beside AI_CONCURRENCY=1, same keys (goal <= 0.3x);
 * - translation-memory hit rate on 1,000 keys of which 30% repeat another key's text, beside the
 *   share of cells that could be served from memory at all.
 *
 *   node tools/build.mjs && node dist/bench/i18n-translate.bench.js [keys=1000] [timedKeys=200] [latencyMs=100]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mintToken } from '@flowplane/platform/auth';
import { startStandalone, type Standalone } from '../apps/standalone/src/standalone';
import type { BenchResult } from './bench-result';
import { rng } from './seeded-random';
import { relaunchedUnderPlatformFlags } from './platform-flags';

const SECRET = 'bench-secret-0123456789abcdef0123';
/** Targets besides the source `en`: the default `pl` and five more. */
const ADDED_LOCALES = ['de', 'fr', 'es', 'it', 'nl'];
const TARGETS = 1 + ADDED_LOCALES.length;
const WORDS = 'save cancel order account delivery basket payment address profile settings search help contact shipping invoice password email phone total discount'.split(' ');

/** What the stub saw. */
interface StubStats {
  calls: number;
  translateCalls: number;
  reviewCalls: number;
  /** Target locales asked for, summed over translate calls. */
  cellsAsked: number;
  inFlight: number;
  maxInFlight: number;
}

/**
 * An OpenAI-compatible chat endpoint: reads the engine's JSON user message (`targets` of a
 * translation, `candidates` of a review) and answers after `latencyMs` with one JSON object per
 * locale, placeholders kept (the text is prefixed, never rewritten).
 */
async function startStub(latencyMs: number): Promise<{ server: Server; url: string; stats: StubStats }> {
  const stats: StubStats = { calls: 0, translateCalls: 0, reviewCalls: 0, cellsAsked: 0, inFlight: 0, maxInFlight: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      stats.calls++;
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string; messages: Array<{ role: string; content: string }> };
      const user = body.messages.filter((m) => m.role === 'user').pop()?.content ?? '{}';
      let payload: { text?: string; targets?: Array<{ locale: string }>; candidates?: Record<string, string> } = {};
      try {
        payload = JSON.parse(user) as typeof payload;
      } catch {
        // not the engine's prompt: answer an empty object
      }
      let answer: Record<string, unknown> = {};
      if (payload.targets) {
        stats.translateCalls++;
        stats.cellsAsked += payload.targets.length;
        answer = Object.fromEntries(payload.targets.map((t) => [t.locale, `[${t.locale}] ${payload.text ?? ''}`]));
      } else if (payload.candidates) {
        stats.reviewCalls++;
        answer = Object.fromEntries(Object.keys(payload.candidates).map((l) => [l, { ok: true }]));
      }
      const content = JSON.stringify(answer);
      setTimeout(() => {
        stats.inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${stats.calls}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model ?? 'stub',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: Math.ceil(user.length / 4) + 150, completion_tokens: Math.ceil(content.length / 4), total_tokens: Math.ceil(user.length / 4) + 150 + Math.ceil(content.length / 4) },
          }),
        );
      }, latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, stats };
}

/** Distinct short UI strings, seeded; `repeatShare` of them copy the text of an earlier key. */
function catalog(count: number, repeatShare: number, seed: number): Array<{ key: string; text: string }> {
  const rnd = rng(seed);
  const out: Array<{ key: string; text: string }> = [];
  for (let i = 0; i < count; i++) {
    if (i > 10 && rnd() < repeatShare) {
      out.push({ key: `k.${i}`, text: out[Math.floor(rnd() * out.length)].text });
      continue;
    }
    const words = Array.from({ length: 2 + Math.floor(rnd() * 4) }, () => WORDS[Math.floor(rnd() * WORDS.length)]);
    out.push({ key: `k.${i}`, text: `${words.join(' ')} ${i}${rnd() < 0.3 ? ' {count}' : ''}` });
  }
  return out;
}

interface FillAnswer {
  keysProcessed: number;
  localesFilled: number;
  held: number;
  failed: unknown[];
  remaining: number;
  memoryHits?: number;
  usage?: { calls: number; totalTokens: number };
}

/** One platform on the stub with a given concurrency; its catalog filled by one fill run per call of `fill`. */
async function platformOn(stubUrl: string, concurrency: number): Promise<{ platform: Standalone; dataDir: string; admin: string; seed(keys: Array<{ key: string; text: string }>, ns: string): Promise<void>; fill(ns: string): Promise<{ ms: number; answer: FillAnswer }> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-i18n-translate-'));
  const platform = await startStandalone({
    env: {
      ...process.env,
      PORT: '0',
      STORE: 'memory',
      DATA_DIR: dataDir,
      AUTH_JWT_SECRET: SECRET,
      LOG_LEVEL: 'silent',
      LLM_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
      AI_PROFILE: 'bench-stub',
      AI_CONCURRENCY: String(concurrency),
      // One request does the whole run: the figure is the fill loop's, not the request slicing's.
      I18N_TRANSLATE_KEYS_PER_REQUEST: '10000',
      I18N_TRANSLATE_REQUEST_DEADLINE_MS: '3600000',
      I18N_AUTO_TRANSLATE_DISABLED: 'true',
    },
  });
  const admin = await mintToken(SECRET, { sub: 'bench', perms: ['admin:access', 'profiles:*'], ttl: '1h' });
  const api = `${platform.url}/api/v1`;
  const post = async (p: string, body: unknown, method = 'POST') => {
    const res = await fetch(`${api}${p}`, { method, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  await post('/admin/profiles', { module: 'llm', kind: 'llm-chat', profileId: 'bench-stub', name: 'Bench stub', config: { providerID: 'openai-compatible', baseURL: stubUrl, model: 'stub' } });
  for (const code of ADDED_LOCALES) await post('/admin/i18n/locales', { code });
  return {
    platform,
    dataDir,
    admin,
    async seed(keys, ns) {
      // Eight writers at a time: seeding is not what is measured.
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < keys.length) {
            const k = keys[next++];
            await post('/admin/i18n/translations', { ns, key: k.key, translations: { en: k.text } });
          }
        }),
      );
    },
    async fill(ns) {
      const t = performance.now();
      const answer = (await post('/admin/i18n/translations/translate-missing', { ns, review: false })) as FillAnswer;
      return { ms: performance.now() - t, answer };
    },
  };
}

export async function run(): Promise<BenchResult[]> {
  // Numbers only: under `npm run bench -- i18n-translate` the bench names are arguments too.
  const [keyCount = 1000, timedKeys = 200, latencyMs = 100] = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number);
  const stub = await startStub(latencyMs);
  const cleanup: Array<() => Promise<void>> = [async () => void (await new Promise((r) => stub.server.close(r)))];
  try {
    // Calls per cell and memory, at AI_CONCURRENCY=4.
    const four = await platformOn(stub.url, 4);
    cleanup.push(async () => {
      await four.platform.close();
      rmSync(four.dataDir, { recursive: true, force: true });
    });
    const distinct = catalog(keyCount, 0, 1);
    await four.seed(distinct, 'distinct');
    let before = { ...stub.stats };
    const big = await four.fill('distinct');
    const bigCalls = stub.stats.calls - before.calls;
    const bigCells = keyCount * TARGETS;
    if (big.answer.localesFilled < bigCells) process.stderr.write(`note: ${bigCells - big.answer.localesFilled} of ${bigCells} cells not filled (failed ${big.answer.failed.length}, remaining ${big.answer.remaining})\n`);
    const callsPerCell = bigCalls / bigCells;

    const repeated = catalog(keyCount, 0.3, 2);
    const distinctTexts = new Set(repeated.map((k) => k.text)).size;
    const reusable = (repeated.length - distinctTexts) / repeated.length;
    await four.seed(repeated, 'repeated');
    before = { ...stub.stats };
    const mem = await four.fill('repeated');
    const memCalls = stub.stats.calls - before.calls;
    const memHits = mem.answer.memoryHits ?? 0;
    const hitRate = memHits / Math.max(1, mem.answer.localesFilled);

    // Wall time: the same `timedKeys` keys at concurrency 4 and at 1.
    const timed = catalog(timedKeys, 0, 3);
    await four.seed(timed, 'timed');
    const parallel = await four.fill('timed');
    const one = await platformOn(stub.url, 1);
    cleanup.push(async () => {
      await one.platform.close();
      rmSync(one.dataDir, { recursive: true, force: true });
    });
    await one.seed(timed, 'timed');
    const sequential = await one.fill('timed');

    return [
      {
        name: `Model calls per 100 (key, locale) cells, ${keyCount} short keys into ${TARGETS} locales vs one call per cell`,
        ours: callsPerCell * 100,
        baseline: 100,
        unit: 'calls/100 cells',
        ratio: callsPerCell,
        notes: `${callsPerCell.toFixed(3)} calls per cell: ${bigCalls} calls for ${bigCells} cells (${big.answer.localesFilled} filled) in ${(big.ms / 1000).toFixed(1)} s, stub peak concurrency ${stub.stats.maxInFlight}; goal <= 0.2`,
      },
      {
        name: `Fill wall time, ${timedKeys} keys x ${TARGETS} locales, stub ${latencyMs} ms: AI_CONCURRENCY=4 (ms) vs AI_CONCURRENCY=1`,
        ours: parallel.ms,
        baseline: sequential.ms,
        unit: 'ms',
        ratio: parallel.ms / sequential.ms,
        notes: `${parallel.answer.localesFilled} and ${sequential.answer.localesFilled} cells filled; goal <= 0.3x`,
      },
      {
        name: `Translation memory hit rate, ${keyCount} keys with 30% repeated strings (hits/cells filled) vs the reusable share`,
        ours: hitRate * 100,
        baseline: reusable * 100,
        unit: '%',
        ratio: reusable > 0 ? hitRate / reusable : 0,
        notes: `${memHits} of ${mem.answer.localesFilled} cells from memory, ${memCalls} model calls (${(memCalls / Math.max(1, repeated.length * TARGETS)).toFixed(3)} calls/cell) in ${(mem.ms / 1000).toFixed(1)} s`,
      },
    ];
  } finally {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  }
}

if (require.main === module && !relaunchedUnderPlatformFlags()) {
  void run().then((rows) => {
    for (const r of rows) console.log(`${r.name}: ${r.ours.toFixed(3)} vs ${r.baseline.toFixed(3)} ${r.unit} (ratio ${r.ratio.toFixed(3)}) ${r.notes ?? ''}`);
  });
}
