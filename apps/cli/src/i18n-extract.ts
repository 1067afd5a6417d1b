#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { contextMap, type ContextMap } from './i18n-extract/contexts';
import { buildReport, commonPrefix, MAX_KEYS_PER_REPORT, mergeKeys, type ReportAnswer, type ReportBody } from './i18n-extract/report';
import { collectSources, type FoundKey, scanSource } from './i18n-extract/scan';
import { adminBearer, commandTimeout, gatewayUrl, startTimeCap, usageFailure } from './shared/translate-command';

/**
 * i18n-extract: the build-time key extractor (client conventions 4 to 6). Finds `$t('key',
 * 'default')` calls in TS, TSX, JS, JSX, MJS and HTML sources, attaches translator notes from
 * i18n-contexts.json and reports the keys under one module name: with an admin token through
 * POST /api/v1/admin/i18n/report-keys, which works while I18N_AUTOREGISTER=false (production), else
 * through the public POST /api/v1/i18n/report-keys. Exit codes: 0 reported (or a dry run), 1 a call failed or was refused or the time cap
 * (CLI_TIMEOUT) was hit, 2 usage errors.
 */

const usage = `Usage: i18n-extract <files or folders...> --module <name> [--contexts <file>] [--ns <namespace>]
                    [--dry-run] [--base-url <url>]

Finds $t('key', 'default', ...) calls (string literals only) in .ts .tsx .js .jsx .mjs and .html
files (folders recursively, skipping node_modules, dist and hidden folders) and registers the keys
with the platform: a new key is stored with its default as the source text; the text of a key that
exists is never changed. Notes from the contexts file are sent as translator context and replace a
key's note, except on keys that another module reported first (those get no note). The first
default of a key wins; a different default elsewhere is a warning.

Options:
  --module <name>       the surface the keys belong to (required)
  --contexts <file>     key or "prefix*" to note, JSON (default ./i18n-contexts.json when present)
  --ns <namespace>      catalog namespace (default the empty one)
  --dry-run             print the JSON that would be sent; send nothing
  --base-url <url>      the platform's gateway (default FLOWPLANE_URL, else http://localhost:8080)

With an admin token (FLOWPLANE_TOKEN, or AUTH_JWT_SECRET to mint one) the keys go to the admin route
POST /api/v1/admin/i18n/report-keys, which works while the platform runs with I18N_AUTOREGISTER=false
(production); without either, to the public POST /api/v1/i18n/report-keys (development).

Environment:
  CLI_TIMEOUT           time cap of the whole command: 90s, 5m, 1h or milliseconds (default 5m; 0 removes it)
  FLOWPLANE_TOKEN       bearer token (admin:access): reports through the admin route and reads which
                        module owns keys that have a note
  AUTH_JWT_SECRET       without FLOWPLANE_TOKEN, mints that admin token (else the development secret
                        is used only to read owners, and keys go to the public route)`;

const fail: (message: string) => never = usageFailure(usage);

/** Tries of a report call answered 429 (each after its Retry-After). */
const MAX_RATE_LIMIT_TRIES = 5;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      strict: true,
      options: {
        module: { type: 'string' },
        contexts: { type: 'string' },
        ns: { type: 'string', default: '' },
        'dry-run': { type: 'boolean', default: false },
        'base-url': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    fail((e as Error).message);
  }
  const { values: args, positionals } = parsed;
  if (args.help) {
    process.stdout.write(usage + '\n');
    return;
  }
  if (!positionals.length) fail('name at least one file or folder');
  const module = args.module?.trim();
  if (!module) fail('--module <name> is required');
  if (module.length > 100 || CONTROL_CHARS.test(module)) fail('--module must be at most 100 characters without control characters');
  const ns = args.ns ?? '';
  if (ns.length > 100 || CONTROL_CHARS.test(ns)) fail('--ns must be at most 100 characters without control characters');
  const timeoutMs = commandTimeout(fail);
  const base = gatewayUrl(args['base-url']);

  const { files, missing, unsupported } = collectSources(positionals);
  if (missing.length) fail(`no such file or folder: ${missing.join(', ')}`);
  if (unsupported.length) fail(`not a .ts, .tsx, .js, .jsx, .mjs or .html file: ${unsupported.join(', ')}`);
  const notes = readContexts(args.contexts);

  const found: FoundKey[] = [];
  const warnings: string[] = [];
  for (const file of files) {
    const result = scanSource(file, readFileSync(file, 'utf8'));
    found.push(...result.keys);
    warnings.push(...result.warnings);
  }
  const merged = mergeKeys(found);
  warnings.push(...merged.warnings);
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);

  const cap = startTimeCap(timeoutMs);
  const errors: string[] = [];
  let timedOut = false;
  const failed = (e: unknown, what: string) => {
    if (cap.signal.aborted) timedOut = true;
    else errors.push(`${what}: ${(e as Error).message} (${base})`);
  };

  // Who owns the keys that carry a note decides whether the note is sent (convention 6).
  let modulesOf = new Map<string, string[]>();
  const noted = notes ? merged.keys.filter((k) => notes.noteFor(k.key) !== undefined).map((k) => k.key) : [];
  if (noted.length) {
    try {
      modulesOf = await readModules(base, await adminBearer('i18n-extract'), ns, noted, cap.signal);
    } catch (e) {
      failed(e, 'reading which module owns the keys with a note');
    }
  }

  let answer: ReportAnswer | undefined;
  let body: ReportBody | undefined;
  if (!errors.length && !timedOut) {
    const built = buildReport(merged.keys, module, ns, notes, modulesOf);
    body = built.body;
    if (built.withheld.length) {
      process.stderr.write(`note: ${built.withheld.length} key(s) belong to another module and are reported without their note: ${built.withheld.map((w) => `${w.key} (${w.owner})`).join(', ')}\n`);
    }
    if (args['dry-run']) {
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      const calls = Math.ceil(body.keys.length / MAX_KEYS_PER_REPORT);
      process.stderr.write(`dry run: ${body.keys.length} key(s) from ${files.length} file(s), ${calls} call(s) to report-keys; nothing sent\n`);
    } else if (!body.keys.length) {
      process.stdout.write(`no $t calls found in ${files.length} file(s); nothing reported\n`);
    } else {
      try {
        answer = await reportKeys(base, body, await reportRoute(), cap.signal);
      } catch (e) {
        failed(e, 'report-keys');
      }
    }
  }
  cap.stop();

  if (answer && body) {
    process.stdout.write(
      `reported ${body.keys.length} key(s) from ${files.length} file(s) as module ${module}: created ${answer.created}, existing ${answer.existing}, contextUpdated ${answer.contextUpdated}, modulesAdded ${answer.modulesAdded}\n`,
    );
  }
  if (timedOut) process.stderr.write(`stopped: CLI_TIMEOUT (${timeoutMs} ms) reached; run the command again to continue\n`);
  for (const e of errors) process.stderr.write(`error: ${e}\n`);
  if (errors.length || timedOut) process.exit(1);
}

/** The contexts file: --contexts, else ./i18n-contexts.json when there is one. A bad file is a usage error. */
function readContexts(given: string | undefined): ContextMap | undefined {
  const file = given ?? (existsSync('i18n-contexts.json') ? 'i18n-contexts.json' : undefined);
  if (!file) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    fail(`cannot read the contexts file ${file}: ${(e as Error).message}`);
  }
  try {
    return contextMap(json);
  } catch (e) {
    fail(`${file}: ${(e as Error).message}`);
  }
}

/** Throws an Error with the service's message for a non-2xx answer. */
async function refused(res: Response, what: string): Promise<never> {
  const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
  throw new Error(`${what} answered ${res.status}${body.code ? ` ${body.code}` : ''}: ${body.message ?? res.statusText}`);
}

/**
 * The modules of each of `keys` that exists in `ns`, read from the admin list of translation rows
 * (the one answer that names a key's modules), narrowed by the keys' common prefix, page by page.
 */
async function readModules(base: string, bearer: string, ns: string, keys: readonly string[], signal: AbortSignal): Promise<Map<string, string[]>> {
  const wanted = new Set(keys);
  const out = new Map<string, string[]>();
  const prefix = commonPrefix(keys);
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ ns, limit: '1000', ...(prefix ? { prefix } : {}), ...(cursor ? { cursor } : {}) });
    const res = await fetch(`${base}/api/v1/admin/i18n/translations?${query}`, { headers: { authorization: `Bearer ${bearer}` }, signal });
    if (!res.ok) await refused(res, 'GET /admin/i18n/translations');
    const page = (await res.json()) as { items: Array<{ key: string; modules?: string[] }>; nextCursor: string | null };
    for (const row of page.items) if (wanted.has(row.key)) out.set(row.key, row.modules ?? []);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** Where the keys go and with which headers. */
interface ReportRoute {
  path: string;
  headers: Record<string, string>;
}

/**
 * The admin route when the command has a credential of its own: production turns the public route
 * off (I18N_AUTOREGISTER=false) and the build-time extractor is how keys get there. Without one (a
 * developer's laptop), the public route, which needs none.
 */
async function reportRoute(): Promise<ReportRoute> {
  if (process.env.FLOWPLANE_TOKEN?.trim() || process.env.AUTH_JWT_SECRET) {
    return { path: '/api/v1/admin/i18n/report-keys', headers: { authorization: `Bearer ${await adminBearer('i18n-extract')}` } };
  }
  return { path: '/api/v1/i18n/report-keys', headers: {} };
}

/** Reports the keys in calls of at most 500, waiting out 429 answers; the answers summed. */
async function reportKeys(base: string, body: ReportBody, route: ReportRoute, signal: AbortSignal): Promise<ReportAnswer> {
  const total: ReportAnswer = { created: 0, existing: 0, contextUpdated: 0, modulesAdded: 0 };
  for (let i = 0; i < body.keys.length; i += MAX_KEYS_PER_REPORT) {
    const slice = { ...body, keys: body.keys.slice(i, i + MAX_KEYS_PER_REPORT) };
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${base}${route.path}`, { method: 'POST', headers: { ...route.headers, 'content-type': 'application/json' }, body: JSON.stringify(slice), signal });
      if (res.status === 429 && attempt < MAX_RATE_LIMIT_TRIES) {
        const seconds = Number(res.headers.get('retry-after')) || 1;
        await res.arrayBuffer().catch(() => undefined);
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, Math.min(seconds, 60) * 1000);
          signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))), { once: true });
        });
        continue;
      }
      if (!res.ok) await refused(res, `POST ${route.path.replace('/api/v1', '')}`);
      const answer = (await res.json()) as ReportAnswer;
      total.created += answer.created;
      total.existing += answer.existing;
      total.contextUpdated += answer.contextUpdated;
      total.modulesAdded += answer.modulesAdded ?? 0;
      break;
    }
  }
  return total;
}

if (require.main === module) void main();
