#!/usr/bin/env node
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chunkDocument, formatOfPath, type KnowledgeDocument } from '@flowplane/assistant/knowledge';
import { adminBearer, gatewayUrl } from './shared/translate-command';

/**
 * assistant-ingest: fills the assistant's knowledge index from Markdown, HTML and text files.
 * Chunks locally with the service's own chunker (for the progress bar and --dry-run), posts the
 * documents in batches to POST /api/v1/admin/assistant/ingest, which embeds and upserts them and
 * replaces earlier versions of the same files. Exit codes: 0 all ingested, 1 some batch failed,
 * 2 usage errors.
 */

const usage = `Usage: assistant-ingest <files or folders...> [--index svc_docs] [--base-url URL] [--dry-run]

Reads .md, .markdown, .html, .htm and .txt files (folders recursively), splits them by headings and
paragraphs into chunks of about 800 characters and ingests them into the assistant's knowledge index.
A file's id is its path relative to the current directory: ingesting it again replaces its chunks.

Options:
  --index <name>     knowledge index (default svc_docs)
  --base-url <url>   the platform's gateway (default FLOWPLANE_URL, else http://localhost:8080)
  --dry-run          chunk and report, send nothing
  --batch-kb <n>     largest request body in KiB (default 512; keep it under HTTP_BODY_LIMIT)

The token is FLOWPLANE_TOKEN, else one minted with AUTH_JWT_SECRET (or the development secret) for
an admin (admin:access).`;

interface FileDoc {
  file: string;
  doc: KnowledgeDocument;
  chunks: number;
}

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${usage}\n`);
  process.exit(2);
}

/** Every readable file under `p` with a known extension, sorted. */
function collect(p: string, out: string[]): void {
  let st;
  try {
    st = statSync(p);
  } catch {
    fail(`no such file or folder: ${p}`);
  }
  if (st.isDirectory()) {
    for (const name of readdirSync(p).sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const child = path.join(p, name);
      if (statSync(child).isDirectory() || formatOfPath(name)) collect(child, out);
    }
  } else if (formatOfPath(p)) out.push(p);
  else fail(`${p} is not a .md, .html, .htm or .txt file`);
}

/** A document id from a path: relative, forward slashes, other characters replaced. */
export function idOfPath(file: string, cwd = process.cwd()): string {
  const rel = path.relative(cwd, path.resolve(file)).split(path.sep).join('/').replace(/^(\.\.\/)+/, '');
  const id = rel.replace(/[^A-Za-z0-9._:/-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return (id || 'document').slice(0, 200);
}

/** The title: a Markdown H1, an HTML <title> or <h1>, else the file name. */
function titleOf(text: string, format: string, file: string): string {
  const strip = (s: string) => s.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim();
  const m = format === 'markdown' ? /^#\s+(.+)$/m.exec(text) : format === 'html' ? /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text) : null;
  const title = m ? strip(m[1]) : '';
  return title || path.basename(file).replace(/\.[^.]+$/, '');
}

class Progress {
  private readonly tty = Boolean(process.stderr.isTTY);
  private readonly started = Date.now();
  constructor(private readonly total: number) {}

  rate(done: number): number {
    const s = (Date.now() - this.started) / 1000;
    return s > 0 ? done / s : 0;
  }

  update(done: number, note = ''): void {
    const width = 30;
    const filled = this.total ? Math.round((done / this.total) * width) : width;
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${this.total} chunks  ${this.rate(done).toFixed(1)} chunks/s${note ? `  ${note}` : ''}`;
    if (this.tty) process.stderr.write(`\r${line}\u001b[K`);
    else process.stderr.write(`${line}\n`);
  }

  end(): void {
    if (this.tty) process.stderr.write('\n');
  }
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        index: { type: 'string', default: 'svc_docs' },
        'base-url': { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        'batch-kb': { type: 'string', default: '512' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
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
  if (!/^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/.test(args.index!)) fail(`invalid index name ${JSON.stringify(args.index)}`);
  const batchBytes = Number(args['batch-kb']) * 1024;
  if (!Number.isFinite(batchBytes) || batchBytes < 1024) fail('--batch-kb must be a number of KiB, at least 1');
  const base = gatewayUrl(args['base-url']);

  const files: string[] = [];
  for (const p of positionals) collect(p, files);
  const docs: FileDoc[] = [];
  const skipped: string[] = [];
  const seen = new Map<string, string>();
  for (const file of [...new Set(files)]) {
    const format = formatOfPath(file)!;
    const text = readFileSync(file, 'utf8');
    const id = idOfPath(file);
    if (seen.has(id)) fail(`${file} and ${seen.get(id)} map to the same document id ${id}`);
    seen.set(id, file);
    const doc: KnowledgeDocument = { id, title: titleOf(text, format, file), text, format };
    const chunks = chunkDocument(doc).length;
    if (!chunks) skipped.push(file);
    else docs.push({ file, doc, chunks });
  }
  const total = docs.reduce((n, d) => n + d.chunks, 0);
  for (const f of skipped) process.stderr.write(`skipped ${f}: no text\n`);

  if (args['dry-run']) {
    for (const d of docs) process.stdout.write(`${d.doc.id}\t${d.chunks} chunks\t${d.doc.title}\n`);
    process.stdout.write(`dry run: ${docs.length} document(s), ${total} chunk(s) for ${args.index}, ${skipped.length} skipped; nothing sent\n`);
    return;
  }
  if (!docs.length) {
    process.stdout.write(`nothing to ingest: ${skipped.length} file(s) without text\n`);
    return;
  }

  const bearer = await adminBearer('assistant-ingest');

  // Batches by body size, so each request stays under the platform's body limit.
  const batches: FileDoc[][] = [];
  let current: FileDoc[] = [];
  let size = 0;
  for (const d of docs) {
    const bytes = Buffer.byteLength(JSON.stringify(d.doc));
    if (current.length && size + bytes > batchBytes) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(d);
    size += bytes;
  }
  if (current.length) batches.push(current);

  const progress = new Progress(total);
  progress.update(0);
  let done = 0;
  let okDocs = 0;
  let okChunks = 0;
  let embedded = 0;
  let removed = 0;
  const failures: string[] = [];
  for (const batch of batches) {
    const chunks = batch.reduce((n, d) => n + d.chunks, 0);
    try {
      const res = await fetch(`${base}/api/v1/admin/assistant/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ index: args.index, documents: batch.map((d) => d.doc) }),
      });
      const body = (await res.json().catch(() => ({}))) as { message?: string; chunks?: number; embeddedChunks?: number; removedChunks?: number };
      if (!res.ok) {
        failures.push(`${batch.map((d) => d.file).join(', ')}: ${res.status} ${body.message ?? res.statusText}`);
        if (res.status === 401 || res.status === 403) break;
      } else {
        removed += body.removedChunks ?? 0;
        okDocs += batch.length;
        okChunks += body.chunks ?? chunks;
        embedded += body.embeddedChunks ?? chunks;
      }
    } catch (e) {
      failures.push(`${batch.map((d) => d.file).join(', ')}: ${(e as Error).message} (${base})`);
      break;
    }
    done += chunks;
    progress.update(done);
  }
  progress.end();
  process.stdout.write(
    `ingested ${okDocs} of ${docs.length} document(s), ${okChunks} chunk(s) (${embedded} embedded, ${okChunks - embedded} unchanged) into ${args.index} at ${progress.rate(done).toFixed(1)} chunks/s; ${removed} stale chunk(s) removed, ${skipped.length} file(s) skipped\n`,
  );
  for (const f of failures) process.stderr.write(`failed: ${f}\n`);
  if (failures.length) process.exit(1);
}

if (require.main === module) void main();
