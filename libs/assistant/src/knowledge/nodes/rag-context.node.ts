import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { type Excerpt, formatExcerpts } from '@flowplane/llm';

export const RAG_CONTEXT_NODE = 'svc/assistant-rag-context';
/** Route of the node on the assistant service. */
export const RAG_CONTEXT_PATH = '/internal/nodes/assistant-rag-context';

/** A source the answer may cite: `[n]` in the excerpts. */
export interface RagSource {
  n: number;
  title: string;
  url?: string;
  score: number;
}

export interface RagSettings {
  index: string;
  topK: number;
  minScore: number;
  queryKey?: string;
  citations: boolean;
}

export const RAG_DEFAULTS: RagSettings = { index: 'svc_docs', topK: 4, minScore: 0, citations: true };

export const RAG_CONTEXT_MANIFEST = {
  id: RAG_CONTEXT_NODE,
  name: 'Knowledge retrieval',
  kind: 'action',
  description:
    "Retrieves the top-K chunks of the knowledge index (filled by assistant-ingest or POST /admin/assistant/ingest) for the question: `packet[queryKey]`, or by default the latest user message of `messages`. Prepends one system message with the numbered excerpts to `messages` (asking the model to cite them as [N], or with `citations: false` not to write markers) and writes `sources` [{n, title, url, score}]. `Error` {error, code, index, warnings} when the index does not exist (code INDEX_NOT_FOUND), the search service is down or there is no question; the packet's messages pass through, so a flow can route Error on to the model, which then answers without excerpts and says so through `warnings`.",
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      index: { type: 'string', title: 'Index', default: RAG_DEFAULTS.index, pattern: '^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$', description: 'Knowledge index, with or without the search prefix (`svc_docs` is the logical `docs`).', 'x-order': 1 },
      topK: { type: 'integer', title: 'Top K', default: RAG_DEFAULTS.topK, minimum: 1, maximum: 50, description: 'Chunks to retrieve.', 'x-order': 2 },
      minScore: { type: 'number', title: 'Minimum score', default: RAG_DEFAULTS.minScore, minimum: -1, maximum: 1, description: 'Chunks scoring below it are dropped.', 'x-order': 3 },
      queryKey: { type: 'string', title: 'Query field', description: 'Packet field holding the search query (for example the rewrite step\'s output); default the latest user message.', 'x-order': 4 },
      citations: { type: 'boolean', title: 'Citations', default: RAG_DEFAULTS.citations, description: 'True: numbered excerpts and a prompt asking to cite them as [N]; false: the prompt forbids markers (sources still travel beside the answer).', 'x-order': 5 },
    },
    'x-ui': { order: ['index', 'topK', 'minScore', 'queryKey', 'citations'] },
  },
  inputs: [{ port: 'in', description: 'A chat packet: `messages` [{role, content}], or the field named by queryKey.' }],
  outputs: [
    { port: 'out', description: 'The packet with the excerpt system message first in `messages`, `sources` and `index`.' },
    { port: 'Error', description: 'No retrieval: {error, code, index, warnings} beside the packet\'s own fields.' },
  ],
} as const;

type Packet = Record<string, unknown>;
const isObject = (v: unknown): v is Packet => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The node's settings with defaults; throws a message for a bad value. */
export function ragSettingsOf(config: unknown): RagSettings {
  const c = isObject(config) ? config : {};
  const blank = (v: unknown) => v === undefined || v === null || v === '';
  const index = blank(c.index) ? RAG_DEFAULTS.index : String(c.index);
  const topK = blank(c.topK) ? RAG_DEFAULTS.topK : Number(c.topK);
  if (!Number.isInteger(topK) || topK < 1 || topK > 50) throw new Error(`topK must be an integer from 1 to 50, got ${JSON.stringify(c.topK)}`);
  const minScore = blank(c.minScore) ? RAG_DEFAULTS.minScore : Number(c.minScore);
  if (!Number.isFinite(minScore)) throw new Error(`minScore must be a number, got ${JSON.stringify(c.minScore)}`);
  const citations = blank(c.citations) ? RAG_DEFAULTS.citations : c.citations === true || c.citations === 'true';
  return { index, topK, minScore, citations, ...(typeof c.queryKey === 'string' && c.queryKey.trim() ? { queryKey: c.queryKey.trim() } : {}) };
}

/** The text of a message's content (a string, or text parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join(' ');
  return '';
}

/** The question: `packet[queryKey]` when set, else the latest user message, else `message`/`query`/`text`. */
export function questionOf(packet: Packet, queryKey?: string): string | undefined {
  if (queryKey) {
    const v = packet[queryKey];
    return typeof v === 'string' && v.trim() ? v.trim() : undefined;
  }
  if (Array.isArray(packet.messages)) {
    for (let i = packet.messages.length - 1; i >= 0; i--) {
      const m = packet.messages[i];
      if (isObject(m) && m.role === 'user') {
        const t = textOf(m.content).trim();
        if (t) return t;
      }
    }
  }
  for (const key of ['message', 'query', 'text']) {
    const v = packet[key];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return undefined;
}

/** A hit's excerpt title: the document title and the heading path. */
function titleOf(payload: Packet): string {
  const title = typeof payload.title === 'string' ? payload.title : '';
  const headings = Array.isArray(payload.headings) ? payload.headings.filter((h): h is string => typeof h === 'string' && h !== title) : [];
  return [title, ...headings].filter(Boolean).join(' > ') || 'Untitled';
}

/** The `out` packet: the excerpt system message first, then the packet's messages (or the question as one). */
export function withExcerpts(packet: Packet, question: string, hits: Array<{ score: number; payload: Packet }>, settings: RagSettings, backendIndex: string): Packet {
  const kept = hits.filter((h) => h.score >= settings.minScore).slice(0, settings.topK);
  const excerpts: Excerpt[] = kept.map((h, i) => ({ n: i + 1, title: titleOf(h.payload), text: typeof h.payload.text === 'string' ? h.payload.text : '' }));
  const sources: RagSource[] = kept.map((h, i) => ({ n: i + 1, title: typeof h.payload.title === 'string' ? h.payload.title : 'Untitled', ...(typeof h.payload.url === 'string' ? { url: h.payload.url } : {}), score: h.score }));
  const system = { role: 'system', content: formatExcerpts(excerpts, { citations: settings.citations }) };
  const messages = Array.isArray(packet.messages) && packet.messages.length ? packet.messages : [{ role: 'user', content: question }];
  return { ...packet, messages: [system, ...messages], sources, index: backendIndex };
}

/** The `Error` packet: the packet's own fields (messages pass on), why, and a warning the chat can show. */
export function retrievalError(packet: Packet, code: string, error: string, index: string, warning: string): Packet {
  const warnings = Array.isArray(packet.warnings) ? packet.warnings : [];
  return { ...packet, sources: [], error, code, index, warnings: [...warnings, warning] };
}
