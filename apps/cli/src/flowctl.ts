#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  convertDocument,
  type Diagnostic,
  formatDiagnostics,
  hasErrors,
  sourceFormat,
  targetFormat,
  TARGET_FORMATS,
  toolSelection,
  TOOL_SELECTIONS,
  toolsOfDocument,
  UnknownFormatError,
  SOURCE_FORMATS,
  validateDocument,
} from '@flowplane/flow/compile';
import { SecretsKeyring } from '@flowplane/platform/config';
import {
  findStoreDirs,
  repairStoreDir,
  StoreRepairError,
  type StoreFileReport,
  type StoreReport,
  verifyStoreDir,
} from '@flowplane/platform/store';

/**
 * flowctl: the compile pipeline from the command line, and checks of the embedded store's files.
 * Exit codes: 0 success, 1 the document has errors (or warnings with --strict) or a store is
 * damaged, 2 usage errors.
 */

const VERSION = '0.1.0';
const REPORTS = ['text', 'json', 'sarif'] as const;

const usage = `Usage: flowctl <command> <file> [options]

Commands:
  export <file> --format <target> [--from <source>] [--out <file>] [--syntax json|yaml]
      Converts a document through the IR. Targets: ${TARGET_FORMATS.join(', ')}.
  validate <file> [--format text|json|sarif] [--from <source>] [--strict]
      Checks a document (codes FDL001..FDL060, model and pipeline codes). Exit 1 on errors; warnings
      fail only with --strict.
  tools <file> [--select ${TOOL_SELECTIONS.join('|')}] [--from <source>] [--out <file>]
      Prints function-calling tool definitions (JSON).
  store verify <dir> [--format text|json]
      Reads the embedded stores under <dir> (DATA_DIR, or one service's DATA_DIR/<service>) without
      opening them: records per journal and snapshot, and the first bad record (byte offset, reason).
      Exit 0 when every file is clean, 1 otherwise.
  store repair <dir> --truncate-at-first-bad
      Cuts each damaged journal at its first bad record (a copy is kept as <journal>.bak-<time>;
      journals written after it are moved aside the same way) and reports the records and bytes
      dropped. Stop the platform first. Exit 0 when every store opens afterwards, 1 otherwise.
  secrets new-key [--kid <id>]
      Prints a new random SECRETS_KEY entry "<id>:<32 bytes in base64>". To rotate, put it first in
      SECRETS_KEY, keep the old entries after it, restart (stored secrets are re-encrypted with the
      first key), then drop the old entries.

Sources (--from, default auto-detected): ${SOURCE_FORMATS.join(', ')}.
Use "-" as <file> to read standard input.

Examples:
  flowctl export orders.flow.yaml --format openapi --out openapi.json
  flowctl export orders.flow.yaml --format asyncapi
  flowctl validate orders.flow.yaml --format sarif > flowctl.sarif
  flowctl tools orders.flow.yaml --select commands
  flowctl store verify .data
  flowctl store repair .data/profiles --truncate-at-first-bad`;

class UsageError extends Error {}

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readFile: (path: string) => Buffer;
  writeFile: (path: string, text: string) => void;
}

const realIo: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  readFile: (p) => (p === '-' ? readFileSync(0) : readFileSync(p)),
  writeFile: (p, t) => writeFileSync(p, t),
};

/** Runs one flowctl invocation; resolves the exit code. */
export function flowctl(argv: string[], io: Io = realIo): number {
  try {
    return run(argv, io);
  } catch (e) {
    if (e instanceof UsageError || e instanceof UnknownFormatError) {
      io.stderr(`flowctl: ${e.message}\n\nRun "flowctl --help" for usage.\n`);
      return 2;
    }
    io.stderr(`flowctl: ${(e as Error).message}\n`);
    return 2;
  }
}

function run(argv: string[], io: Io): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string', short: 'f' },
        from: { type: 'string' },
        out: { type: 'string', short: 'o' },
        select: { type: 'string' },
        syntax: { type: 'string' },
        strict: { type: 'boolean', default: false },
        'truncate-at-first-bad': { type: 'boolean', default: false },
        kid: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    io.stdout(`flowctl ${VERSION}\n`);
    return 0;
  }
  const [command, file, ...extra] = positionals;
  if (values.help || !command) {
    (values.help ? io.stdout : io.stderr)(usage + '\n');
    return values.help ? 0 : 2;
  }
  if (command === 'store') return store(positionals.slice(1), values, io);
  if (command === 'secrets') return secrets(positionals.slice(1), values.kid, io);
  if (!['export', 'validate', 'tools'].includes(command)) throw new UsageError(`unknown command "${command}"; commands: export, validate, tools, store, secrets`);
  if (!file) throw new UsageError(`${command} needs a file`);
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const from = sourceFormat(values.from);
  const syntax = values.syntax;
  if (syntax !== undefined && syntax !== 'json' && syntax !== 'yaml') throw new UsageError(`--syntax must be json or yaml, not "${syntax}"`);

  let text: Buffer;
  try {
    text = io.readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message}`);
  }
  const label = file === '-' ? 'stdin' : file;
  const emit = (out: string): void => (values.out ? io.writeFile(values.out, out) : io.stdout(out));
  const warn = (diagnostics: Diagnostic[]): void => {
    if (diagnostics.length) io.stderr(formatDiagnostics(diagnostics, 'text', { file: label }));
  };

  switch (command) {
    case 'export': {
      if (!values.format) throw new UsageError(`export needs --format (${TARGET_FORMATS.join(', ')})`);
      const to = targetFormat(values.format);
      const result = convertDocument(text, { from, to, syntax: syntax as 'json' | 'yaml' | undefined });
      warn(result.diagnostics);
      if (!result.output || hasErrors(result.diagnostics, values.strict)) return 1;
      emit(result.output.text);
      return 0;
    }
    case 'validate': {
      const report = (values.format ?? 'text').toLowerCase();
      if (!(REPORTS as readonly string[]).includes(report)) throw new UsageError(`unknown report format "${values.format}"; valid: ${REPORTS.join(', ')}`);
      const result = validateDocument(text, { from });
      emit(formatDiagnostics(result.diagnostics, report as (typeof REPORTS)[number], { file: label, toolVersion: VERSION }));
      return hasErrors(result.diagnostics, values.strict) ? 1 : 0;
    }
    default: {
      const select = toolSelection(values.select);
      const result = toolsOfDocument(text, { from, select });
      warn(result.diagnostics);
      if (hasErrors(result.diagnostics, values.strict)) return 1;
      emit(JSON.stringify(result.tools, null, 2) + '\n');
      return 0;
    }
  }
}

function store(args: string[], values: { format?: string; 'truncate-at-first-bad'?: boolean }, io: Io): number {
  const [action, dir, ...extra] = args;
  if (action !== 'verify' && action !== 'repair') throw new UsageError(`store needs "verify" or "repair", not ${action ? `"${action}"` : 'nothing'}`);
  if (!dir) throw new UsageError(`store ${action} needs a directory (DATA_DIR or DATA_DIR/<service>)`);
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
  let dirs: string[];
  try {
    dirs = findStoreDirs(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${dir}: ${code === 'ENOENT' ? 'no such directory' : code === 'ENOTDIR' ? 'not a directory' : (e as Error).message}`);
  }
  if (dirs.length === 0) throw new UsageError(`no embedded store under ${dir} (looked for snapshot.jsonl or journal-<n>.jsonl in it and in its sub-directories)`);

  if (action === 'verify') {
    const format = (values.format ?? 'text').toLowerCase();
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown report format "${values.format}"; valid: text, json`);
    const reports = dirs.map(verifyStoreDir);
    io.stdout(format === 'json' ? JSON.stringify({ stores: reports }, null, 2) + '\n' : reports.map(formatStoreReport).join(''));
    return reports.every((r) => r.clean) ? 0 : 1;
  }

  if (!values['truncate-at-first-bad']) throw new UsageError('store repair needs --truncate-at-first-bad (the one repair there is: drop the damaged record and everything after it)');
  let failed = 0;
  for (const d of dirs) {
    try {
      const r = repairStoreDir(d);
      if (!r.repaired) {
        io.stdout(`${d}: clean, nothing to repair\n`);
        continue;
      }
      const t = r.truncated!;
      io.stdout(
        `${d}: truncated ${path.basename(t.file)} at byte ${t.offset} (backup ${path.basename(t.backup)})\n` +
          r.removedJournals.map((j) => `  moved aside the later journal ${path.basename(j.file)} (now ${path.basename(j.backup)})\n`).join('') +
          `  dropped ${r.droppedRecords} record${r.droppedRecords === 1 ? '' : 's'} (${r.droppedValidRecords} of them intact after the damage) and ${r.droppedBytes} bytes\n`,
      );
    } catch (e) {
      if (!(e instanceof StoreRepairError)) throw e;
      failed++;
      io.stderr(`${d}: not repaired: ${e.message}\n`);
    }
  }
  return failed ? 1 : 0;
}

function secrets(args: string[], kid: string | undefined, io: Io): number {
  const [action, ...extra] = args;
  if (action !== 'new-key') throw new UsageError(`secrets needs "new-key", not ${action ? `"${action}"` : 'nothing'}`);
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (kid !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(kid)) throw new UsageError('--kid must be 1 to 32 letters, digits, "_" or "-"');
  io.stdout(SecretsKeyring.newKeyEntry(kid) + '\n');
  return 0;
}

function formatStoreReport(r: StoreReport): string {
  const state = r.clean ? 'clean' : r.opens ? 'damaged (only a torn last record: the store cuts it off itself on its next start)' : 'CORRUPT (the store refuses to open)';
  const lines = [`${r.dir}: ${state}${r.lockedBy !== undefined ? ` [open in process ${r.lockedBy}]` : ''}`];
  for (const f of r.files) lines.push(`  ${formatFile(f)}`);
  return lines.join('\n') + '\n';
}

function formatFile(f: StoreFileReport): string {
  const name = path.basename(f.file);
  if (f.kind === 'stale-journal') return `${name}: ${f.bytes} bytes, older than the snapshot (removed on the next start)`;
  const head = `${name}: ${f.bytes} bytes, ${f.records} record${f.records === 1 ? '' : 's'}`;
  const b = f.firstBad;
  if (!b) return `${head}, ok`;
  return (
    `${head} before the first bad one\n` +
    `    first bad record: #${b.record} at byte ${b.offset}: ${b.reason}\n` +
    `    from there to the end: ${b.linesAfter} line${b.linesAfter === 1 ? '' : 's'} (${b.validAfter} intact), ${b.bytesAfter} bytes`
  );
}

if (require.main === module) {
  process.exitCode = flowctl(process.argv.slice(2));
}
