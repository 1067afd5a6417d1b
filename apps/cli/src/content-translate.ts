#!/usr/bin/env node
import { adminBearer, commandTimeout, gatewayUrl, list, parseCommandArgs, Progress, startTimeCap, usageFailure } from './shared/translate-command';

export { parseDuration } from './shared/translate-command';

/**
 * content-translate: machine-translates the ready pages and fragments of a running platform into
 * its active locales (settings rule 19). Calls POST /api/v1/admin/content/translations/run (the
 * command-line fill loop behind the admin route; one call works until its request deadline) until a
 * call leaves nothing for lack of budget, or makes no progress, showing a progress bar and ending
 * with the report. Exit codes: 0 everything done, 1 some translation failed or a call was refused
 * or the time cap (CLI_TIMEOUT) was hit, 2 usage errors.
 */

const usage = `Usage: content-translate [--pages=<a,b>] [--fragments=<k1,k2>] [--locales=<de,fr>] [--force] [--dry-run]
                         [--batch=<n>] [--base-url=<url>]

Translates the missing and stale units of every page and fragment marked ready (translationReady)
into every active locale, or into --locales. Records not marked ready are skipped and listed.
Records with reviewRequired get their translations held for review (GET
/api/v1/admin/content/translations/pending) instead of published.

Options:
  --pages <a,b>         only these pages (with --fragments absent, no fragment)
  --fragments <k1,k2>   only these fragments (with --pages absent, no page)
  --locales <de,fr>     only these locales (default: every active locale but the source)
  --force               translate every unit again, not only missing and stale ones
  --dry-run             report what would be translated; call no model, write nothing
  --batch <n>           (unit, locale) translations per call at most (default: as many as one call's
                        deadline allows); smaller calls suit a gateway with a short upstream timeout
  --base-url <url>      the platform's gateway (default FLOWPLANE_URL, else http://localhost:8080)

Environment:
  CLI_TIMEOUT           time cap of the whole command: 90s, 5m, 1h or milliseconds (default 5m; 0 removes it)
  FLOWPLANE_TOKEN       bearer token; else one minted with AUTH_JWT_SECRET (or the development secret)
                        for an admin (admin:access)`;

/** The run route's answer (the fields this command reads). */
interface RunAnswer {
  translated: number;
  failed: Array<{ type: string; id: string; unit: string; locale: string; reason: string }>;
  pending: number;
  skipped: Array<{ type: string; id: string; reason: string }>;
  reason: 'nothing_to_do' | 'budget_exhausted' | 'waiting_for_quiet' | null;
  remaining: number;
  records?: number;
  memoryHits?: number;
  usage?: { calls?: number; totalTokens?: number; costUsd?: number };
}


const fail: (message: string) => never = usageFailure(usage);

async function main(): Promise<void> {
  const args = parseCommandArgs(
    {
      pages: { type: 'string' },
      fragments: { type: 'string' },
      locales: { type: 'string' },
      force: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      batch: { type: 'string' },
      'base-url': { type: 'string' },
    },
    usage,
    fail,
  );
  if (!args) return;
  const pages = list(args.pages);
  if (args.pages !== undefined && !pages) fail('--pages needs at least one slug');
  const fragments = list(args.fragments);
  if (args.fragments !== undefined && !fragments) fail('--fragments needs at least one key');
  const locales = list(args.locales);
  if (args.locales !== undefined && !locales) fail('--locales needs at least one locale code');
  const batch = args.batch === undefined ? undefined : Number(args.batch);
  if (batch !== undefined && (!Number.isInteger(batch) || batch < 1)) fail('--batch needs a whole number of at least 1');
  const timeoutMs = commandTimeout(fail);
  const base = gatewayUrl(args['base-url']);

  const bearer = await adminBearer('content-translate');
  const cap = startTimeCap(timeoutMs);

  const body = {
    ...(pages ? { pages } : {}),
    ...(fragments ? { fragments } : {}),
    ...(locales ? { locales } : {}),
    ...(args.force ? { force: true } : {}),
    ...(args['dry-run'] ? { dryRun: true } : {}),
    ...(batch !== undefined ? { budget: batch } : {}),
  };
  const totals = { translated: 0, pending: 0, records: 0, memoryHits: 0, calls: 0, tokens: 0, cost: 0 };
  const failed = new Map<string, RunAnswer['failed'][number]>();
  const skipped = new Map<string, RunAnswer['skipped'][number]>();
  const errors: string[] = [];
  let timedOut = false;
  let stalled = false;
  let remaining = 0;
  let calls = 0;
  const progress = new Progress('translations');

  for (;;) {
    let answer: RunAnswer;
    try {
      const res = await fetch(`${base}/api/v1/admin/content/translations/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        // Force redoes everything: only the first call carries it, the next ones continue missing work.
        body: JSON.stringify(calls > 0 ? { ...body, force: undefined } : body),
        signal: cap.signal,
      });
      const parsedBody = (await res.json().catch(() => ({}))) as RunAnswer & { message?: string; code?: string };
      if (!res.ok) {
        errors.push(`the run answered ${res.status}${parsedBody.code ? ` ${parsedBody.code}` : ''}: ${parsedBody.message ?? res.statusText}`);
        break;
      }
      answer = parsedBody;
    } catch (e) {
      if (cap.signal.aborted) timedOut = true;
      else errors.push(`${(e as Error).message} (${base})`);
      break;
    }
    calls++;
    totals.translated += answer.translated;
    totals.pending += answer.pending;
    totals.records += answer.records ?? 0;
    totals.memoryHits += answer.memoryHits ?? 0;
    totals.calls += answer.usage?.calls ?? 0;
    totals.tokens += answer.usage?.totalTokens ?? 0;
    totals.cost += answer.usage?.costUsd ?? 0;
    for (const f of answer.failed) failed.set(`${f.type}\u0000${f.id}\u0000${f.unit}\u0000${f.locale}`, f);
    for (const s of answer.skipped) skipped.set(`${s.type}\u0000${s.id}`, s);
    remaining = answer.remaining;
    const done = totals.translated + totals.pending;
    progress.update(done, done + answer.remaining, `${failed.size ? `${failed.size} failed` : ''}`);
    if (args['dry-run'] || answer.reason !== 'budget_exhausted') break;
    // A call that did nothing and left work behind will not do better the next time.
    if (answer.translated + answer.pending + answer.failed.length === 0) {
      stalled = true;
      break;
    }
  }
  // A failure an earlier call reported may have been retried by a later one: one dry run tells.
  if (!args['dry-run'] && failed.size && !timedOut && !errors.length) {
    try {
      const res = await fetch(`${base}/api/v1/admin/content/translations/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, force: undefined, budget: undefined, dryRun: true }),
        signal: cap.signal,
      });
      const check = (await res.json().catch(() => ({}))) as Partial<RunAnswer>;
      if (res.ok && check.translated === 0 && check.remaining === 0) failed.clear();
    } catch {
      // Keep the failures as reported.
    }
  }
  cap.stop();
  progress.end();

  if (args['dry-run']) {
    process.stdout.write(`dry run: ${totals.translated + remaining} translation(s) needed; nothing written\n`);
  } else if (!errors.length || totals.translated > 0) {
    process.stdout.write(
      `translated ${totals.translated} unit translation(s) in ${totals.records} record(s) (${totals.memoryHits} from translation memory), ${totals.pending} held for review, ${failed.size} failed; ` +
        `${totals.calls} model call(s), ${totals.tokens} tokens, $${totals.cost.toFixed(4)}\n`,
    );
  }
  for (const s of skipped.values()) process.stdout.write(`skipped: ${s.type} ${s.id}: ${s.reason}\n`);
  for (const f of failed.values()) process.stderr.write(`failed: ${f.type} ${f.id} ${f.unit} [${f.locale}]: ${f.reason}\n`);
  if (stalled) process.stderr.write('stopped: the last call made no progress\n');
  if (timedOut) process.stderr.write(`stopped: CLI_TIMEOUT (${timeoutMs} ms) reached; run the command again to continue\n`);
  for (const e of errors) process.stderr.write(`error: ${e}\n`);
  if (errors.length || timedOut || failed.size) process.exit(1);
}

if (require.main === module) void main();
