#!/usr/bin/env node
import { adminBearer, commandTimeout, gatewayUrl, list, parseCommandArgs, Progress, startTimeCap, usageFailure } from './shared/translate-command';

export { parseDuration } from './shared/translate-command';

/**
 * i18n-translate: machine-translates the message catalog of a running platform into its active
 * locales. Calls POST /api/v1/admin/i18n/translations/translate-missing (which works through a
 * bounded number of keys per call) until a call processes no key, or a call makes no progress,
 * showing a progress bar and ending with a summary. Exit codes: 0 everything filled, 1 some
 * translation failed or a call was refused or the time cap (CLI_TIMEOUT) was hit, 2 usage errors.
 */

const usage = `Usage: i18n-translate [--prefix=<key prefix>] [--keys=<a,b>] [--ns=<namespace>] [--locales=<de,fr>]
                      [--overwrite] [--include-protected] [--review] [--dry-run] [--base-url=<url>]

Fills missing translations (and re-translates stale machine text) of the catalog into every active
locale, or into --locales. --overwrite also replaces every machine translation made before the
command started (for example the local provider's pseudo-localized text, once a real model is
configured) and text of unknown origin. Human, code/seed and admin-approved text is never replaced
without both --overwrite and --include-protected.

Options:
  --prefix <p>          only keys starting with p
  --keys <a,b>          only these keys (comma-separated)
  --ns <namespace>      only this namespace (default: every namespace; "" is the default bucket)
  --locales <de,fr>     only these locales (default: every active locale but the source)
  --overwrite           also replace machine text made before this run and text of unknown origin
  --include-protected   with --overwrite, also replace human, code/seed and admin-approved text
  --review              run the review gate before writing (flagged text of a key with a note is held)
  --dry-run             report what would be translated; call no model, write nothing
  --base-url <url>      the platform's gateway (default FLOWPLANE_URL, else http://localhost:8080)

Environment:
  CLI_TIMEOUT           time cap of the whole command: 90s, 5m, 1h or milliseconds (default 5m; 0 removes it)
  FLOWPLANE_TOKEN       bearer token; else one minted with AUTH_JWT_SECRET (or the development secret)
                        for an admin (admin:access)`;

/** The answer of translate-missing (the fields this command reads). */
interface FillAnswer {
  keysProcessed: number;
  localesFilled: number;
  skippedProtected: number;
  held: number;
  failed: Array<{ key: string; ns?: string; locale: string; reason: string }>;
  remaining: number;
  memoryHits?: number;
  missingSource?: number;
  usage?: { calls?: number; promptTokens?: number; completionTokens?: number; totalTokens?: number; costUsd?: number };
  /** With --overwrite: machine text written before this instant is replaced (the start of the pass). */
  overwriteBefore?: string;
}

/** Keys the route takes per call at most (its request validation). */
const MAX_KEYS_PER_CALL = 1000;

const fail: (message: string) => never = usageFailure(usage);

interface Totals {
  keys: number;
  filled: number;
  held: number;
  skipped: number;
  memoryHits: number;
  missingSource: number;
  calls: number;
  tokens: number;
  cost: number;
  /** Every cell a call reported failed, once each (with its latest reason). */
  failed: Map<string, { key: string; ns?: string; locale: string; reason: string }>;
}

async function main(): Promise<void> {
  const args = parseCommandArgs(
    {
      prefix: { type: 'string' },
      keys: { type: 'string' },
      ns: { type: 'string' },
      locales: { type: 'string' },
      overwrite: { type: 'boolean', default: false },
      'include-protected': { type: 'boolean', default: false },
      review: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      'base-url': { type: 'string' },
    },
    usage,
    fail,
  );
  if (!args) return;
  if (args['include-protected'] && !args.overwrite) fail('--include-protected needs --overwrite');
  const keys = list(args.keys);
  if (args.keys !== undefined && !keys) fail('--keys needs at least one key');
  const locales = list(args.locales);
  if (args.locales !== undefined && !locales) fail('--locales needs at least one locale code');
  const timeoutMs = commandTimeout(fail);
  const base = gatewayUrl(args['base-url']);

  const bearer = await adminBearer('i18n-translate');
  const cap = startTimeCap(timeoutMs);

  const body = {
    // A source text or note edited since its machine translation was made is a reason to redo that
    // translation: without this, stale text would stay until somebody ran an --overwrite.
    mode: 'missing_and_stale',
    ...(args.prefix !== undefined ? { prefix: args.prefix } : {}),
    ...(args.ns !== undefined ? { ns: args.ns } : {}),
    ...(locales ? { locales } : {}),
    ...(args.overwrite ? { overwrite: true } : {}),
    ...(args['include-protected'] ? { includeProtected: true } : {}),
    review: Boolean(args.review),
    ...(args['dry-run'] ? { dryRun: true } : {}),
  };
  // Explicit keys go in slices the route accepts; otherwise one open-ended selection.
  const slices: Array<string[] | undefined> = keys ? Array.from({ length: Math.ceil(keys.length / MAX_KEYS_PER_CALL) }, (_, i) => keys.slice(i * MAX_KEYS_PER_CALL, (i + 1) * MAX_KEYS_PER_CALL)) : [undefined];

  const totals: Totals = { keys: 0, filled: 0, held: 0, skipped: 0, memoryHits: 0, missingSource: 0, calls: 0, tokens: 0, cost: 0, failed: new Map() };
  const errors: string[] = [];
  let timedOut = false;
  let stalled = false;
  const progress = new Progress('keys');
  let dryRunAnswer: FillAnswer | undefined;
  // One run is one overwrite pass: every call after the first replaces only what was there before
  // the first one, so the loop ends instead of redoing its own work.
  let overwriteBefore: string | undefined;

  outer: for (const slice of slices) {
    let lastRemaining = Number.POSITIVE_INFINITY;
    for (;;) {
      let answer: FillAnswer;
      try {
        const res = await fetch(`${base}/api/v1/admin/i18n/translations/translate-missing`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...body, ...(slice ? { keys: slice } : {}), ...(overwriteBefore ? { overwriteBefore } : {}) }),
          signal: cap.signal,
        });
        const parsedBody = (await res.json().catch(() => ({}))) as FillAnswer & { message?: string; code?: string };
        if (!res.ok) {
          errors.push(`translate-missing answered ${res.status}${parsedBody.code ? ` ${parsedBody.code}` : ''}: ${parsedBody.message ?? res.statusText}`);
          break outer;
        }
        answer = parsedBody;
        overwriteBefore ??= answer.overwriteBefore;
      } catch (e) {
        if (cap.signal.aborted) timedOut = true;
        else errors.push(`${(e as Error).message} (${base})`);
        break outer;
      }
      if (args['dry-run']) {
        dryRunAnswer = answer;
        break outer;
      }
      totals.keys += answer.keysProcessed;
      totals.filled += answer.localesFilled;
      totals.held += answer.held;
      totals.skipped += answer.skippedProtected;
      totals.memoryHits += answer.memoryHits ?? 0;
      totals.missingSource += answer.missingSource ?? 0;
      totals.calls += answer.usage?.calls ?? 0;
      totals.tokens += answer.usage?.totalTokens ?? 0;
      totals.cost += answer.usage?.costUsd ?? 0;
      const failedNow = new Set(answer.failed.map((f) => `${f.ns ?? ''}\u0000${f.key}\u0000${f.locale}`));
      for (const f of answer.failed) totals.failed.set(`${f.ns ?? ''}\u0000${f.key}\u0000${f.locale}`, f);
      progress.update(totals.keys, totals.keys + answer.remaining, `${totals.filled} filled${answer.failed.length ? `, ${failedNow.size} failed` : ''}`);
      if (answer.keysProcessed === 0) break;
      // Keys that keep failing stay in `remaining`: a call that fills nothing and leaves as much to do ends the loop.
      if (answer.localesFilled === 0 && answer.held === 0 && answer.remaining >= lastRemaining) {
        stalled = answer.remaining > 0;
        break;
      }
      lastRemaining = answer.remaining;
      if (answer.remaining === 0 && answer.failed.length === 0) break;
    }
  }
  // A cell one call reported failed may have been filled by a later call: ask once more (a dry run
  // over just those keys) and forget the failures of every namespace that has nothing left to do.
  if (!args['dry-run'] && totals.failed.size && !timedOut && !errors.length) {
    const byNs = new Map<string, Set<string>>();
    for (const f of totals.failed.values()) {
      const set = byNs.get(f.ns ?? '') ?? new Set<string>();
      set.add(f.key);
      byNs.set(f.ns ?? '', set);
    }
    for (const [ns, keySet] of byNs) {
      const all = [...keySet];
      let settled = true;
      for (let i = 0; i < all.length && settled; i += MAX_KEYS_PER_CALL) {
        try {
          const res = await fetch(`${base}/api/v1/admin/i18n/translations/translate-missing`, {
            method: 'POST',
            headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
            body: JSON.stringify({ ...body, ns, keys: all.slice(i, i + MAX_KEYS_PER_CALL), dryRun: true, ...(overwriteBefore ? { overwriteBefore } : {}) }),
            signal: cap.signal,
          });
          const check = (await res.json().catch(() => ({}))) as Partial<FillAnswer>;
          settled = res.ok && (check.keysProcessed ?? 1) + (check.remaining ?? 1) === 0;
        } catch {
          settled = false;
        }
      }
      if (!settled) continue;
      for (const [id, f] of totals.failed) if ((f.ns ?? '') === ns) totals.failed.delete(id);
    }
  }
  cap.stop();
  progress.end();

  if (dryRunAnswer) {
    const total = dryRunAnswer.keysProcessed + dryRunAnswer.remaining;
    process.stdout.write(`dry run: ${total} key(s) need translation (${dryRunAnswer.keysProcessed} in the first batch)${dryRunAnswer.skippedProtected ? `, ${dryRunAnswer.skippedProtected} protected locale(s) would be left alone` : ''}; nothing written\n`);
  } else if (!errors.length || totals.keys > 0) {
    process.stdout.write(
      `translated ${totals.keys} key(s): ${totals.filled} locale(s) filled (${totals.memoryHits} from translation memory), ${totals.held} held for review, ${totals.failed.size} failed, ${totals.skipped} protected skipped` +
        `${totals.missingSource ? `, ${totals.missingSource} without source text` : ''}; ${totals.calls} model call(s), ${totals.tokens} tokens, $${totals.cost.toFixed(4)}\n`,
    );
  }
  for (const f of totals.failed.values()) process.stderr.write(`failed: ${f.ns ? `${f.ns}:` : ''}${f.key} [${f.locale}]: ${f.reason}\n`);
  if (stalled) process.stderr.write('stopped: the last call made no progress (the failures above keep their keys waiting)\n');
  if (timedOut) process.stderr.write(`stopped: CLI_TIMEOUT (${timeoutMs} ms) reached; run the command again to continue\n`);
  for (const e of errors) process.stderr.write(`error: ${e}\n`);
  if (errors.length || timedOut || totals.failed.size) process.exit(1);
}

if (require.main === module) void main();
