import { Parser } from 'htmlparser2';
import { Lexer, type Token, type Tokens } from 'marked';

/** Formats the ingest reads; anything else is refused before chunking. */
export const KNOWLEDGE_FORMATS = ['markdown', 'html', 'text'] as const;
export type KnowledgeFormat = (typeof KNOWLEDGE_FORMATS)[number];

/** A document as an operator hands it in. */
export interface KnowledgeDocument {
  id: string;
  title: string;
  url?: string;
  text: string;
  /** Default `markdown` (plain text without headings reads the same). */
  format?: KnowledgeFormat;
}

/** One piece of a document, as it is embedded and stored. */
export interface KnowledgeChunk {
  /** `<docId>#<n>`: deterministic, so re-ingesting overwrites the same points. */
  id: string;
  docId: string;
  /** 0-based position in the document. */
  n: number;
  title: string;
  /** Headings above the chunk, outermost first. */
  headings: string[];
  url?: string;
  text: string;
}

export interface ChunkOptions {
  /** Longest chunk in characters (default 800). */
  size?: number;
  /** Characters a chunk repeats from the end of the previous one in the same section (default 100). */
  overlap?: number;
}

export const DEFAULT_CHUNK_SIZE = 800;
export const DEFAULT_CHUNK_OVERLAP = 100;

/** Text under one heading path. */
interface Section {
  headings: string[];
  paragraphs: string[];
}

/** The file extensions the CLI reads, with their format. */
export function formatOfPath(path: string): KnowledgeFormat | undefined {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (ext === 'md' || ext === 'markdown') return 'markdown';
  if (ext === 'html' || ext === 'htm') return 'html';
  if (ext === 'txt') return 'text';
  return undefined;
}

/**
 * Splits a document by headings, then packs its paragraphs into chunks of at most `size`
 * characters; a chunk never spans two sections, and inside a section each chunk starts with the
 * last `overlap` characters of the one before (cut at a word), so a sentence on a boundary is
 * whole in one of them. HTML loses scripts, styles and markup first.
 */
export function chunkDocument(doc: KnowledgeDocument, options: ChunkOptions = {}): KnowledgeChunk[] {
  const size = Math.max(50, options.size ?? DEFAULT_CHUNK_SIZE);
  const overlap = Math.min(Math.max(0, options.overlap ?? DEFAULT_CHUNK_OVERLAP), Math.floor(size / 2));
  const sections = sectionsOf(doc.text ?? '', doc.format ?? 'markdown');
  const out: KnowledgeChunk[] = [];
  for (const section of sections) {
    const body = section.paragraphs.map(squash).filter(Boolean).join('\n\n');
    if (!body) continue;
    for (const text of windows(body, size, overlap)) {
      const n = out.length;
      out.push({ id: `${doc.id}#${n}`, docId: doc.id, n, title: doc.title, headings: section.headings, ...(doc.url ? { url: doc.url } : {}), text });
    }
  }
  return out;
}

/** The text a chunk is embedded with: its title and heading path give a short chunk its context. */
export function embeddingText(chunk: KnowledgeChunk): string {
  const head = [chunk.title, ...chunk.headings].filter(Boolean).join(' > ');
  return head ? `${head}\n${chunk.text}` : chunk.text;
}

/** A document's text grouped by heading path (HTML without scripts, styles and markup). */
export function sectionsOf(text: string, format: KnowledgeFormat): Section[] {
  if (format === 'html') return htmlSections(text);
  if (format === 'text') return [{ headings: [], paragraphs: text.split(/\n\s*\n/) }];
  return markdownSections(text);
}

function squash(paragraph: string): string {
  return paragraph
    .split('\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

function markdownSections(text: string): Section[] {
  const sections: Section[] = [{ headings: [], paragraphs: [] }];
  const stack: Array<{ depth: number; text: string }> = [];
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'heading') {
        const h = t as Tokens.Heading;
        while (stack.length && stack[stack.length - 1].depth >= h.depth) stack.pop();
        stack.push({ depth: h.depth, text: plainInline(h.text) });
        sections.push({ headings: stack.map((s) => s.text), paragraphs: [] });
      } else if (t.type !== 'space' && t.type !== 'hr' && t.type !== 'def') {
        const raw = t.type === 'paragraph' || t.type === 'text' ? plainInline((t as Tokens.Paragraph).text) : t.raw;
        sections[sections.length - 1].paragraphs.push(raw);
      }
    }
  };
  // Block tokens only: the inline pass (emphasis, links) is not needed to find headings and costs most of the time.
  walk(new Lexer().blockTokens(text.replace(/\r\n?/g, '\n')));
  return sections.filter((s) => s.paragraphs.some((p) => p.trim()));
}

/** Inline Markdown as the reader sees it: links keep their text, emphasis and code marks go. */
function plainInline(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|\*|_|`)(?=\S)([^*_`]*?\S)\1/g, '$2');
}

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'iframe', 'object']);
const BLOCKS = new Set(['p', 'div', 'li', 'ul', 'ol', 'br', 'section', 'article', 'main', 'aside', 'header', 'footer', 'nav', 'blockquote', 'pre', 'table', 'tr', 'td', 'th', 'dd', 'dt', 'dl', 'figure', 'figcaption', 'form', 'hr']);
const HEADING = /^h([1-6])$/;

function htmlSections(html: string): Section[] {
  const sections: Section[] = [{ headings: [], paragraphs: [] }];
  const stack: Array<{ depth: number; text: string }> = [];
  let skipping = 0;
  let heading: { depth: number; text: string } | undefined;
  let buf = '';
  const flush = () => {
    if (buf.trim()) sections[sections.length - 1].paragraphs.push(buf);
    buf = '';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIPPED.has(name)) {
          skipping++;
          return;
        }
        const h = HEADING.exec(name);
        if (h) {
          flush();
          heading = { depth: Number(h[1]), text: '' };
        } else if (BLOCKS.has(name)) flush();
      },
      ontext(text) {
        if (skipping) return;
        if (heading) heading.text += text;
        else buf += text;
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) {
          skipping = Math.max(0, skipping - 1);
          return;
        }
        if (heading && HEADING.test(name)) {
          const h = { depth: heading.depth, text: heading.text.replace(/\s+/g, ' ').trim() };
          heading = undefined;
          if (!h.text) return;
          while (stack.length && stack[stack.length - 1].depth >= h.depth) stack.pop();
          stack.push(h);
          sections.push({ headings: stack.map((s) => s.text), paragraphs: [] });
        } else if (BLOCKS.has(name)) flush();
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return sections
    .map((s) => ({ headings: s.headings, paragraphs: s.paragraphs.map((p) => p.replace(/[ \t\r\n]+/g, ' ').trim()).filter(Boolean) }))
    .filter((s) => s.paragraphs.length);
}

/**
 * Windows of at most `size` characters over `body`, each ending at the best break before the
 * limit (paragraph, then sentence, then word) and each after the first starting `overlap`
 * characters before the previous end, moved forward to the start of a word.
 */
function windows(body: string, size: number, overlap: number): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < body.length) {
    if (body.length - start <= size) {
      const last = body.slice(start).trim();
      if (last) out.push(last);
      break;
    }
    const end = breakBefore(body, start, start + size);
    out.push(body.slice(start, end).trim());
    let next = Math.max(end - overlap, start + 1);
    // Start on a word: skip the rest of a word cut in half, then the blanks after it.
    if (next > 0 && /\S/.test(body[next - 1]) && /\S/.test(body[next])) {
      while (next < end && /\S/.test(body[next])) next++;
    }
    while (next < end && /\s/.test(body[next])) next++;
    start = next >= end ? end : next;
  }
  return out.filter(Boolean);
}

/** The best place to end a window in `[start, limit]`: the latest paragraph, sentence or word break in its second half. */
function breakBefore(body: string, start: number, limit: number): number {
  const floor = start + Math.floor((limit - start) / 2);
  const slice = body.slice(floor, limit);
  const para = slice.lastIndexOf('\n\n');
  if (para >= 0) return floor + para;
  let sentence = -1;
  for (const m of slice.matchAll(/[.!?;:](?=\s)/g)) sentence = m.index + 1;
  if (sentence > 0) return floor + sentence;
  const space = Math.max(slice.lastIndexOf(' '), slice.lastIndexOf('\n'));
  if (space > 0) return floor + space;
  return limit;
}
