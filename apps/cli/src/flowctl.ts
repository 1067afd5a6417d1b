#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  convertDocument,
  type Diagnostic,
  formatDiagnostics,
  hasErrors,
  readDocument,
  sourceFormat,
  targetFormat,
  TARGET_FORMATS,
  toolSelection,
  TOOL_SELECTIONS,
  toolsOfDocument,
  UnknownFormatError,
  SOURCE_FORMATS,
} from '@flowplane/flow/compile';

/**
 * flowctl: the compile pipeline from the command line (issue 5 item 8).
 * Exit codes: 0 success, 1 the document has errors (or warnings with --strict), 2 usage errors.
 */

const VERSION = '0.1.0';
const REPORTS = ['text', 'json', 'sarif'] as const;

const usage = `Usage: flowctl <command> <file> [options]

Commands:
  export <file> --format <target> [--from <source>] [--out <file>] [--syntax json|yaml]
      Converts a document through the IR. Targets: ${TARGET_FORMATS.join(', ')}.
  validate <file> [--format text|json|sarif] [--from <source>] [--strict]
      Checks a document (codes FDL001..FDL060). Exit 1 on errors; warnings fail only with --strict.
  tools <file> [--select ${TOOL_SELECTIONS.join('|')}] [--from <source>] [--out <file>]
      Prints function-calling tool definitions (JSON).

Sources (--from, default auto-detected): ${SOURCE_FORMATS.join(', ')}.
Use "-" as <file> to read standard input.

Examples:
  flowctl export orders.flow.yaml --format openapi --out openapi.json
  flowctl export orders.flow.yaml --format asyncapi
  flowctl validate orders.flow.yaml --format sarif > flowctl.sarif
  flowctl tools orders.flow.yaml --select commands`;

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
  if (!['export', 'validate', 'tools'].includes(command)) throw new UsageError(`unknown command "${command}"; commands: export, validate, tools`);
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
      const result = readDocument(text, { from });
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

if (require.main === module) {
  process.exitCode = flowctl(process.argv.slice(2));
}
