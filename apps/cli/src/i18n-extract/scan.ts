import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Finding `$t('key', 'default', …)` calls with TypeScript's own parser (TS, TSX, JS, JSX, MJS) and,
 * in HTML, in inline scripts and in attribute and text occurrences (templates such as
 * `{{ $t('a', 'A') }}` or `:title="$t('a', 'A')"`). Only string literals count: a key or default
 * built at run time is reported as a warning, never guessed.
 */

/** One `$t` call with a literal key. `text` is undefined when the call has no literal default. */
export interface FoundKey {
  key: string;
  text?: string;
  file: string;
  line: number;
}

export interface ScanResult {
  keys: FoundKey[];
  warnings: string[];
}

const SCRIPT_KINDS: Record<string, ts.ScriptKind> = {
  '.ts': ts.ScriptKind.TS,
  '.tsx': ts.ScriptKind.TSX,
  // JSX is a superset for plain JavaScript sources, so .js files holding JSX parse too.
  '.js': ts.ScriptKind.JSX,
  '.jsx': ts.ScriptKind.JSX,
  '.mjs': ts.ScriptKind.JSX,
};

/** Extensions the extractor reads. */
export const SOURCE_EXTENSIONS = [...Object.keys(SCRIPT_KINDS), '.html'];

/** Folders never walked into. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist']);

/**
 * The source files under the given paths, in a stable order (each folder's entries sorted by name),
 * skipping node_modules, dist and hidden folders. A path that does not exist is reported in `missing`.
 */
export function collectSources(paths: readonly string[]): { files: string[]; missing: string[]; unsupported: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const unsupported: string[] = [];
  const seen = new Set<string>();
  const add = (file: string) => {
    const resolved = path.resolve(file);
    if (seen.has(resolved)) return;
    seen.add(resolved);
    files.push(file);
  };
  const walk = (dir: string) => {
    const names = readdirSync(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) {
      const child = path.join(dir, name);
      let st;
      try {
        st = statSync(child);
      } catch {
        continue; // a dangling link
      }
      if (st.isDirectory()) {
        if (!SKIPPED_DIRS.has(name) && !name.startsWith('.')) walk(child);
      } else if (SOURCE_EXTENSIONS.includes(path.extname(name).toLowerCase())) add(child);
    }
  };
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      missing.push(p);
      continue;
    }
    if (st.isDirectory()) walk(p);
    else if (SOURCE_EXTENSIONS.includes(path.extname(p).toLowerCase())) add(p);
    else unsupported.push(p);
  }
  return { files, missing, unsupported };
}

/** The `$t` calls of one source file's text; `file` names it in results and picks the parser by extension. */
export function scanSource(file: string, text: string): ScanResult {
  const out: ScanResult = { keys: [], warnings: [] };
  const ext = path.extname(file).toLowerCase();
  if (ext === '.html' || ext === '.htm') {
    scanHtml(file, text, out);
    // Scripts are parsed before the markup around them: back to source order (the sort is stable).
    out.keys.sort((a, b) => a.line - b.line);
  } else scanScript(file, text, SCRIPT_KINDS[ext] ?? ts.ScriptKind.JSX, 0, out);
  return out;
}

/** Lines before `offset` in `text` (0-based count of newlines). */
function linesBefore(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function isDollarT(callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return callee.text === '$t';
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text === '$t';
  return false;
}

function literal(node: ts.Expression | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node)) return literal(node.expression);
  return undefined;
}

/** One call: its literal key and default, or a warning when they are not literals. */
function takeCall(call: ts.CallExpression, sf: ts.SourceFile, file: string, lineOffset: number, out: ScanResult): void {
  const line = sf.getLineAndCharacterOfPosition(call.getStart(sf)).line + 1 + lineOffset;
  const [keyArg, textArg] = call.arguments;
  const key = literal(keyArg);
  if (key === undefined) {
    out.warnings.push(`${file}:${line}: $t with a key that is not a string literal is skipped`);
    return;
  }
  if (!key) {
    out.warnings.push(`${file}:${line}: $t with an empty key is skipped`);
    return;
  }
  const text = literal(textArg);
  if (textArg && text === undefined) out.warnings.push(`${file}:${line}: the default of ${JSON.stringify(key)} is not a string literal; reported without text`);
  out.keys.push({ key, ...(text !== undefined ? { text } : {}), file, line });
}

function scanScript(file: string, text: string, kind: ts.ScriptKind, lineOffset: number, out: ScanResult): void {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && isDollarT(node.expression)) takeCall(node, sf, file, lineOffset, out);
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

/** Script types whose body is JavaScript (no type, modules, the JavaScript MIME types). */
const JS_SCRIPT_TYPE = /^(?:module|(?:text|application)\/(?:javascript|ecmascript|babel|jsx)|)$/i;
/** Script types that hold data, not code or templates. */
const DATA_SCRIPT_TYPE = /(?:json|importmap|speculationrules)$/i;
const SCRIPT_BLOCK = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const COMMENT = /<!--[\s\S]*?-->/g;
const TYPE_ATTR = /\btype\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;
/** How far past `$t(` a template occurrence may run. */
const OCCURRENCE_WINDOW = 4000;

const ENTITIES: Record<string, string> = { quot: '"', apos: "'", amp: '&', lt: '<', gt: '>', nbsp: '\u00a0' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Blanks a range, keeping its newlines (so later offsets keep their line numbers). */
function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

function scanHtml(file: string, html: string, out: ScanResult): void {
  // Inline JavaScript goes through the parser whole; everything else (markup, other script types
  // such as templates) is searched for `$t(` occurrences. Comments and data scripts (JSON) are neither.
  let rest = html.replace(COMMENT, blank);
  rest = rest.replace(SCRIPT_BLOCK, (whole: string, attrs: string, body: string, offset: number) => {
    const m = TYPE_ATTR.exec(attrs);
    const type = (m?.[1] ?? m?.[2] ?? m?.[3] ?? '').trim();
    if (DATA_SCRIPT_TYPE.test(type)) return blank(whole);
    if (!JS_SCRIPT_TYPE.test(type)) return whole;
    const bodyStart = offset + whole.indexOf('>') + 1;
    scanScript(file, body, ts.ScriptKind.JS, linesBefore(html, bodyStart), out);
    return blank(whole);
  });
  const occurrence = /(^|[^\w$])\$t\s*\(/g;
  for (let m = occurrence.exec(rest); m; m = occurrence.exec(rest)) {
    const start = m.index + m[1].length;
    const snippet = decodeEntities(rest.slice(start, start + OCCURRENCE_WINDOW));
    const sf = ts.createSourceFile(file, snippet, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    const first = sf.statements[0];
    if (first && ts.isExpressionStatement(first)) {
      let expr: ts.Expression = first.expression;
      // `$t('a', 'A') }}` parses as the call followed by junk; the call is the leftmost operand.
      while (ts.isBinaryExpression(expr)) expr = expr.left;
      if (ts.isCallExpression(expr) && isDollarT(expr.expression)) {
        takeCall(expr, sf, file, linesBefore(html, start), out);
        continue;
      }
    }
    out.warnings.push(`${file}:${linesBefore(html, start) + 1}: a $t( that does not read as a call is skipped`);
  }
}
