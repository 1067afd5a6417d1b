import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEV_JWT_SECRET } from '@flowplane/platform/auth';
import { describeIntegration } from '@flowplane/platform/testing';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { SPLIT_SERVICES } from '../../tools/split/split';
import { realEngines, type SplitOnEngines, startSplitOnEngines } from '../support/split-engines';
import { tempDir } from '../support/http';

/**
 * Runs the README's shell examples as a reader would paste them into a terminal after `npm start`:
 * every ```bash block from "Quick start" on, in order, in one bash session (variables and files
 * carry over from block to block), against an in-process platform on random ports. Every curl must
 * answer 2xx unless its line says otherwise with a `# → <status>` comment. A block that cannot run
 * here (it needs a real model, an outside service or starts the platform itself) is marked
 * ```bash norun, or preceded by an HTML comment `<!-- not run: why -->`.
 */

const root = path.resolve(__dirname, '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const cli = (name: string) => path.join(root, 'dist', 'apps', 'cli', 'src', `${name}.js`);

export interface ReadmeBlock {
  /** 1-based README line of the first line inside the fence. */
  line: number;
  section: string;
  lines: string[];
  run: boolean;
}

export interface ReadmeCommand {
  line: number;
  text: string;
  /** Expected HTTP status of the curl in this command; undefined means any 2xx. */
  expect?: number;
}

/** The ```bash blocks of `markdown` from the heading `from` on, with their run markers. */
export function bashBlocks(markdown: string, from = '## Quick start'): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  let started = false;
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('#')) {
      if (l.trim() === from) started = true;
      section = l.replace(/^#+\s*/, '');
      continue;
    }
    const fence = /^```(\S*)\s*(.*)$/.exec(l);
    if (!fence) continue;
    let end = i + 1;
    while (end < lines.length && !lines[end].startsWith('```')) end++;
    if (started && fence[1] === 'bash') {
      let prev = i - 1;
      while (prev >= 0 && lines[prev].trim() === '') prev--;
      const norun = /\bnorun\b/.test(fence[2]) || (prev >= 0 && /<!--\s*not run\b/i.test(lines[prev]));
      blocks.push({ line: i + 2, section, lines: lines.slice(i + 1, end), run: !norun });
    }
    i = end;
  }
  return blocks;
}

/**
 * Splits a block into the commands bash would run: a command continues over a trailing backslash,
 * an open quote, an open `$(` and a here-document. A trailing `# → 404` sets the expected status.
 */
export function commandsOf(block: ReadmeBlock): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  let text: string[] = [];
  let first = 0;
  let single = false;
  let double = false;
  let parens = 0;
  let heredoc: string | undefined;
  let expect: number | undefined;
  block.lines.forEach((line, idx) => {
    if (!text.length) {
      first = block.line + idx;
      expect = undefined;
    }
    text.push(line);
    if (heredoc !== undefined) {
      if (line.trim() === heredoc) heredoc = undefined;
    } else {
      let comment = '';
      for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (single) {
          if (c === "'") single = false;
        } else if (c === '\\') i++;
        else if (c === "'" && !double) single = true;
        else if (c === '"') double = !double;
        else if (!double && c === '$' && line[i + 1] === '(') {
          parens++;
          i++;
        } else if (!double && c === ')' && parens > 0) parens--;
        else if (!double && c === '#' && (i === 0 || /\s/.test(line[i - 1]))) {
          comment = line.slice(i);
          break;
        }
      }
      const status = /→\s*(\d{3})\b/.exec(comment);
      if (status) expect = Number(status[1]);
      const doc = !single && !double ? /<<-?\s*'?(\w+)'?/.exec(line.slice(0, line.length - comment.length)) : null;
      if (doc) heredoc = doc[1];
    }
    const continues = single || double || parens > 0 || heredoc !== undefined || /\\$/.test(line);
    if (continues) return;
    const command = text.join('\n');
    text = [];
    if (command.trim() === '' || /^\s*#/.test(command) && !command.includes('\n')) return;
    out.push({ line: first, text: command, expect });
  });
  if (text.length) out.push({ line: first, text: text.join('\n'), expect });
  return out;
}

/** Shell prelude: curl that records each status, npm that runs the built CLI. */
function prelude(failFile: string, logFile: string): string {
  return `
set -o pipefail
__FAIL=${JSON.stringify(failFile)}
__LOG=${JSON.stringify(logFile)}
__cmd() { __LINE=$1; __EXPECT=$2; }
__done() {
  if [ "$2" != 0 ] && ! grep -q "^README line $1:" "$__FAIL"; then
    echo "README line $1: exited with status $2" >> "$__FAIL"
  fi
}
curl() {
  local body code rc
  body=$(mktemp)
  code=$(command curl -sS --max-time 20 -o "$body" -w '%{http_code}' "$@")
  rc=$?
  cat "$body"
  echo "README line $__LINE: $code" >> "$__LOG"
  if [ $rc != 0 ]; then
    echo "README line $__LINE: curl failed ($rc, HTTP $code): $(head -c 300 "$body")" >> "$__FAIL"
    rm -f "$body"; return 1
  fi
  if { [ -n "$__EXPECT" ] && [ "$code" != "$__EXPECT" ]; } || { [ -z "$__EXPECT" ] && { [ "$code" -lt 200 ] || [ "$code" -gt 299 ]; }; }; then
    echo "README line $__LINE: expected \${__EXPECT:-2xx}, got $code: $(head -c 300 "$body")" >> "$__FAIL"
    rm -f "$body"; return 1
  fi
  rm -f "$body"
}
npm() {
  if [ "$1 $2 $4" = "run -s --" ] && { [ "$3" = token ] || [ "$3" = flowctl ] || [ "$3" = i18n-translate ] || [ "$3" = i18n-extract ] || [ "$3" = content-translate ]; }; then
    local tool=$3; shift 4
    node ${JSON.stringify(path.join(root, 'dist/apps/cli/src'))}/$tool.js "$@"
  else
    echo "README line $__LINE: npm $* is not something this runner can do" >> "$__FAIL"; return 1
  fi
}
`;
}

/** Replaces the default ports of `npm start` with the ports the test platform got. */
function rewritePorts(text: string, ports: Record<number, number>): string {
  return text.replace(/localhost:(80[89]\d)\b/g, (m, p: string) => (ports[Number(p)] ? `127.0.0.1:${ports[Number(p)]}` : m));
}

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('README command splitting', () => {
  const block = (text: string): ReadmeBlock => ({ line: 10, section: 's', lines: text.split('\n'), run: true });

  it('keeps quoted, continued, substituted and here-document commands whole and reads expected statuses', () => {
    const cmds = commandsOf(
      block(
        [
          "curl -d '{",
          '  "a": 1}\'   # → 201',
          'curl x \\',
          '  -H y',
          "V=$(curl -s x -d '{}' |",
          "  sed 's/a/b/')",
          "cat > f.yaml <<'EOF'",
          "a: 'b",
          'EOF',
          '# a comment',
          'curl "a#b" # → 404 not found',
          'echo done # → ok',
        ].join('\n'),
      ),
    );
    expect(cmds.map((c) => [c.line, c.expect])).toEqual([
      [10, 201],
      [12, undefined],
      [14, undefined],
      [16, undefined],
      [20, 404],
      [21, undefined],
    ]);
    expect(cmds[3].text.split('\n')).toHaveLength(3);
  });

  it('finds norun blocks by their fence or a preceding comment', () => {
    const md = ['# T', '```bash', 'a', '```', '## Quick start', '```bash norun', 'b', '```', '<!-- not run: needs a model -->', '', '```bash', 'c', '```', '```js', 'd', '```', '```bash', 'e', '```'].join('\n');
    expect(bashBlocks(md).map((b) => [b.lines[0], b.run, b.line])).toEqual([
      ['b', false, 7],
      ['c', false, 12],
      ['e', true, 18],
    ]);
  });
});

/** Repository paths a markdown text names in backticks or links (`dist/x.js` stands for its source `x.ts`). */
export function mentionedPaths(markdown: string): string[] {
  const named = [...markdown.matchAll(/`([^`\s]+)`|\]\(([^)#\s]+)\)/g)].map((m) => m[1] ?? m[2]);
  const out = new Set<string>();
  for (const raw of named) {
    const p = raw.replace(/^\.\//, '');
    if (!/^(apps|libs|tests|docs|tools|k8s|docker|bench|dist)\//.test(p) || /[<*]/.test(p) || p === 'bench/results/') continue;
    const brace = /\{([^}]+)\}/.exec(p);
    const expanded = brace ? brace[1].split(',').map((alt) => p.replace(brace[0], alt)) : [p];
    for (const e of expanded) out.add(e.replace(/^dist\/(.+)\.js$/, '$1.ts'));
  }
  return [...out];
}

describe('README paths', () => {
  it('names only files and folders that exist', () => {
    const paths = mentionedPaths(readme);
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
  });

  it('lets docs/architecture.md name only paths inside the repository', () => {
    const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
    expect(doc).not.toMatch(/\.\.\//);
    expect(mentionedPaths(doc).filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
  });
});

describe('README examples run as written against npm start', () => {
  let platform: Standalone;
  let dataDir: string;
  let workDir: string;
  const ports: Record<number, number> = {};

  beforeAll(async () => {
    for (const tool of ['token', 'flowctl']) {
      if (!existsSync(cli(tool))) throw new Error(`${cli(tool)} is missing: run node tools/build.mjs first (npm test does)`);
    }
    dataDir = tempDir('readme');
    workDir = tempDir('readme-cwd');
    const env: Record<string, string | undefined> = { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    // As `npm start` on a laptop: the development secret, which `npm run token` signs with too.
    delete env.AUTH_JWT_SECRET;
    delete env.AUTH_SERVICE_SECRET;
    platform = await startStandalone({ env });
    ports[8080] = platform.gateway.port;
    const defaults: Record<string, number> = { 'flow-runtime': 8081, deployments: 8082, profiles: 8083, assistant: 8084, i18n: 8085, search: 8086, hub: 8087 };
    for (const s of platform.services) ports[defaults[s.name]] = s.port;
  });
  afterAll(async () => {
    await platform?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('every bash block is marked runnable or not, and the runnable ones answer as documented', async () => {
    await runExamples(workDir, ports);
  }, 100_000);
});

/** Runs every runnable block in one bash session against the platform on `ports`; fails with what failed. */
async function runExamples(workDir: string, ports: Record<number, number>, timeoutMs = 80_000): Promise<void> {
  const blocks = bashBlocks(readme);
  expect(blocks.filter((b) => b.run).length).toBeGreaterThanOrEqual(8);
  const failFile = path.join(workDir, '.readme-failures');
  const logFile = path.join(workDir, '.readme-statuses');
  writeFileSync(failFile, '');
  writeFileSync(logFile, '');
  const body: string[] = [];
  for (const b of blocks.filter((x) => x.run)) {
    for (const c of commandsOf(b)) {
      if (/^\s*open\s+http/.test(c.text)) continue;
      body.push(`__cmd ${c.line} ${c.expect ?? "''"}`, rewritePorts(c.text, ports), `__done ${c.line} $?`);
    }
  }
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' };
  const res = await runBash(prelude(failFile, logFile) + body.join('\n') + '\n', workDir, env, timeoutMs);
  // README_TRANSCRIPT=<file> keeps what the examples printed, to read their answers.
  if (process.env.README_TRANSCRIPT) writeFileSync(process.env.README_TRANSCRIPT, res.stdout + '\n--- stderr ---\n' + res.stderr);
  const failures = readFileSync(failFile, 'utf8').split('\n').filter(Boolean);
  const statuses = readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
  expect({ failures, exit: res.code, stderr: failures.length ? res.stderr.slice(-2000) : '' }).toEqual({ failures: [], exit: 0, stderr: '' });
  expect(statuses.length).toBeGreaterThanOrEqual(30);
}

// The same examples against split mode on the production engines: every service its own process
// on Apache Kafka, each with its own database on a MongoDB-wire server.
const engines = realEngines();
describeIntegration(`README examples run as written against split mode on ${engines.label}`, engines.unavailable, { requiredInCi: true }, () => {
  let split: SplitOnEngines | undefined;
  let workDir: string;
  const ports: Record<number, number> = {};
  const base = 19780;

  beforeAll(async () => {
    for (const tool of ['token', 'flowctl']) {
      if (!existsSync(cli(tool))) throw new Error(`${cli(tool)} is missing: run node tools/build.mjs first (npm test does)`);
    }
    workDir = tempDir('readme-split-cwd');
    // `npm run token` signs with the development secret, as on `npm start`.
    split = await startSplitOnEngines(engines, 'readme_split', { basePort: base, env: { AUTH_JWT_SECRET: DEV_JWT_SECRET, LOG_LEVEL: 'warn', KAFKA_MAX_WAIT_MS: '100' } });
    for (const [, port] of SPLIT_SERVICES) ports[port] = port - 8080 + base;
  }, 300_000);
  afterAll(async () => {
    await split?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  }, 120_000);

  it('answers every runnable block as documented', async () => {
    await runExamples(workDir, ports, 150_000);
  }, 180_000);
});
