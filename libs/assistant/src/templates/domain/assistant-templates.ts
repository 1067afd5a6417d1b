import type { FlowDocument, FlowEdge, FlowNode } from '@flowplane/flow/ir';

/** One entry of the assistant's template catalog (GET /admin/assistant/templates). */
export interface AssistantTemplate {
  /** Bare name (`default`), the value of `?template=` on the reset routes. */
  name: string;
  /** Template id (`assistant/default`). */
  id: string;
  title: string;
  description: string;
  tier: string;
  recommended: boolean;
  /** Infrastructure it needs beyond `npm start` (SMTP, vector database, embedder). */
  requires: string[];
  /** The flow document; absent for catalog entries not shipped yet (`available: false`). */
  document?: FlowDocument;
}

/** The node that files a handoff (issue 16 item 5); default-tier templates route to it. */
export const HANDOFF_NODE_ID = 'svc/assistant-handoff-request';
/** Name of the template the module flow is seeded from. */
export const DEFAULT_TEMPLATE = 'default';
/** Templates the public (superuser) reset may choose. */
export const PUBLIC_RESET_TEMPLATES = ['default', 'production'] as const;

/**
 * Bumped whenever an embedded document changes: module-owned published versions with a lower
 * `meta.schemaVersion` are upgraded at start-up (Versioning 3).
 */
export const TEMPLATE_SCHEMA_VERSION = 3;

const start: FlowNode = { id: 'start', name: 'Start', kind: 'start' };
const end: FlowNode = { id: 'end', name: 'End', kind: 'end' };
const refused: FlowNode = { id: 'refused', name: 'Refused', kind: 'end', config: { status: 'rejected' } };
const render = (id: string, name: string, template: string): FlowNode => ({ id, name, kind: 'action', action_ref: 'svc/template-render', config: { template, target: 'content' } });
const edge = (from: string, to: string, extra: Partial<FlowEdge> = {}): FlowEdge => ({ id: `${from}-${extra.port ?? 'out'}-${to}`, from, to, ...extra });

/** Node id of the retrieval node (served by the assistant, registered with flow-runtime). */
export const RAG_NODE_ID = 'svc/assistant-rag-context';
/** The knowledge index the retrieval templates read (the logical `docs` under the default prefix). */
export const DEFAULT_KNOWLEDGE_INDEX = 'svc_docs';
/** Packet field the rewrite step of rag-rewrite writes its search query to. */
export const REWRITE_QUERY_KEY = 'searchQuery';

/** Recipients of production's trust-and-safety mail (resolved by the engine at run time). */
export const TRUST_SAFETY_TO = '$setting:assistant/trust_safety_to || $setting:site/support_email || support@localhost';

const SYSTEM_PROMPT = 'You are a helpful assistant. Answer in the language of the user.';
/** Asks the model to hand over to a person by writing the token `svc/escalation-detect` looks for. */
const PRODUCTION_PROMPT = `${SYSTEM_PROMPT} When the user needs a person (a complaint, a legal or safety matter, or a request you cannot handle), reply briefly and end the reply with [[ESCALATE]].`;
const REWRITE_PROMPT = "Rewrite the user's latest question as a short search query for the knowledge base: keywords only, no explanation, in the language of the question.";

/**
 * Positions of a readable left-to-right layout: each inner list is a column (left to right), its
 * nodes stacked top to bottom. Nodes of the main path come first in their column.
 */
function layout(columns: string[][]): Record<string, { x: number; y: number }> {
  const positions: Record<string, { x: number; y: number }> = {};
  columns.forEach((column, x) => column.forEach((id, y) => (positions[id] = { x: x * 240, y: y * 140 })));
  return positions;
}

function doc(name: string, description: string, nodes: FlowNode[], edges: FlowEdge[], columns: string[][]): FlowDocument {
  const positions = layout(columns);
  const missing = nodes.filter((n) => !positions[n.id]).map((n) => n.id);
  if (missing.length) throw new Error(`template ${name}: no position for ${missing.join(', ')}`);
  return { name, description, nodes, edges, meta: { schemaVersion: TEMPLATE_SCHEMA_VERSION, assistantTemplate: name, positions } };
}

const echo = doc(
  'Assistant (echo)',
  'Echoes the latest user message; no model, zero tokens.',
  [start, render('echo', 'Echo', '{{input.message}}'), end],
  [edge('start', 'echo'), edge('echo', 'end')],
  [['start'], ['echo'], ['end']],
);

const minimal = doc(
  'Assistant (minimal)',
  'One chat model call per turn; no guards, grounding or handoff.',
  [start, { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { systemPrompt: 'You are a helpful assistant.' } }, end],
  [edge('start', 'chat'), edge('chat', 'end', { port: 'Reply' })],
  [['start'], ['chat'], ['end']],
);

const guard = (id: string, name: string, role: 'input' | 'output', onError: 'open' | 'closed' = 'open'): FlowNode => ({
  id,
  name,
  kind: 'gateway',
  action_ref: 'svc/guard',
  config: { guardID: 'llm-classifier', role, onError },
});
const chatNode = (config: Record<string, unknown> = {}): FlowNode => ({ id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { systemPrompt: SYSTEM_PROMPT, stream: false, ...config } });
const apology = render('chat_failed', 'Apology', 'Sorry, I cannot answer right now. Please try again in a moment.');
const handoffNodes: FlowNode[] = [
  { id: 'handoff', name: 'Handoff', kind: 'action', action_ref: HANDOFF_NODE_ID, config: {} },
  render('handoff_filed', 'Handoff confirmation', 'Thank you. A person from our team will contact you at {{meta.email}}.'),
  render('handoff_needs_email', 'Ask for an e-mail', 'To reach a person, please give an e-mail address where we can contact you.'),
  render('handoff_unavailable', 'Handoff unavailable', 'Handing the conversation to a person is not available here. I am happy to keep helping you in this chat.'),
];
const handoffEdges: FlowEdge[] = [
  edge('start', 'handoff', { condition: "meta.intent == 'handoff'" }),
  edge('handoff', 'handoff_filed', { port: 'Handoff' }),
  // Asking for an e-mail only helps when a request could be filed with one.
  edge('handoff', 'handoff_unavailable', { port: 'Error', condition: "packet.code == 'HANDOFF_DISABLED'" }),
  edge('handoff', 'handoff_needs_email', { port: 'Error' }),
  edge('handoff_filed', 'end'),
  edge('handoff_needs_email', 'end'),
  edge('handoff_unavailable', 'end'),
];
/** Allow and Flag of a guard lead on to `to`, Block to the refusal end. */
const guardEdges = (from: string, to: string): FlowEdge[] => [edge(from, to, { port: 'Allow' }), edge(from, to, { port: 'Flag' }), edge(from, 'refused', { port: 'Block' })];

/** Options of the guarded chat shape shared by default, production and the retrieval family. */
interface Shape {
  stream?: boolean;
  handoff?: boolean;
  /** production: the escalation detector between the model and the output guard, and the trust-and-safety mail. */
  escalation?: boolean;
  /** Retrieval between the input guard and the chat. */
  retrieval?: { citations: boolean; queryKey?: string };
  /** rag-rewrite: a model call writing the search query before retrieval. */
  rewrite?: boolean;
  /** qa-only: only the latest user message goes on. */
  singleTurn?: boolean;
}

/**
 * default, default-stream, production and the retrieval templates: start, the handoff router
 * (rule 4) or the input guard, optional pre-processing (single turn, rewrite, retrieval), the
 * chat, the optional escalation detector, the output guard, and the ends.
 */
function guarded(name: string, description: string, o: Shape): FlowDocument {
  const nodes: FlowNode[] = [start, guard('input_guard', 'Input guard', 'input')];
  const edges: FlowEdge[] = [edge('start', 'input_guard')];
  const pre: string[] = [];
  if (o.singleTurn) {
    nodes.push({ id: 'single_turn', name: 'Latest question only', kind: 'action', action_ref: 'svc/chat-window', config: { turns: 1, keepSystem: true } });
    pre.push('single_turn');
  }
  if (o.rewrite) {
    nodes.push({ id: 'rewrite', name: 'Rewrite as a search query', kind: 'action', action_ref: 'svc/llm-chat', config: { systemPrompt: REWRITE_PROMPT, outputKey: REWRITE_QUERY_KEY, maxTokens: 64, temperature: 0 } });
    pre.push('rewrite');
  }
  if (o.retrieval) {
    nodes.push({ id: 'retrieve', name: 'Retrieve excerpts', kind: 'action', action_ref: RAG_NODE_ID, config: { index: DEFAULT_KNOWLEDGE_INDEX, topK: 4, minScore: 0, citations: o.retrieval.citations, ...(o.retrieval.queryKey ? { queryKey: o.retrieval.queryKey } : {}) } });
    pre.push('retrieve');
  }
  const chain = [...pre, 'chat'];
  edges.push(...guardEdges('input_guard', chain[0]));
  for (let i = 0; i + 1 < chain.length; i++) {
    const from = chain[i];
    // A failed rewrite call leaves no question to search (its Error packet is {error} alone): the user gets the apology, as on a failed chat call.
    // Retrieval's Error keeps the packet's messages, so the model still answers, without excerpts.
    if (from === 'rewrite') edges.push(edge('rewrite', chain[i + 1], { port: 'Reply' }), edge('rewrite', 'chat_failed', { port: 'Error' }));
    else if (from === 'retrieve') edges.push(edge('retrieve', chain[i + 1], { port: 'out' }), edge('retrieve', chain[i + 1], { port: 'Error' }));
    else edges.push(edge(from, chain[i + 1]));
  }
  nodes.push(chatNode({ stream: o.stream === true, ...(o.escalation ? { systemPrompt: PRODUCTION_PROMPT } : {}) }), apology);
  edges.push(edge('chat', 'chat_failed', { port: 'Error' }), edge('chat_failed', 'end'));
  if (o.escalation) {
    nodes.push({ id: 'escalation', name: 'Escalation detector', kind: 'gateway', action_ref: 'svc/escalation-detect', config: { token: '[[ESCALATE]]' } });
    edges.push(edge('chat', 'escalation', { port: 'Reply' }), edge('escalation', 'output_guard', { port: 'Reply' }), edge('escalation', 'handoff', { port: 'Escalate' }));
  } else {
    edges.push(edge('chat', 'output_guard', { port: 'Reply' }));
  }
  nodes.push(guard('output_guard', 'Output guard', 'output'));
  edges.push(edge('output_guard', 'end', { port: 'Allow' }), edge('output_guard', 'end', { port: 'Flag' }), edge('output_guard', 'refused', { port: 'Block' }));
  if (o.escalation) {
    // Ephemeral: the mail is queued on a detached branch, so a mail failure never touches the user's run.
    nodes.push({
      id: 'trust_safety_mail',
      name: 'Trust and safety mail',
      kind: 'action',
      action_ref: 'svc/email-send',
      config: {
        to: TRUST_SAFETY_TO,
        subject: 'Assistant reply blocked by the output guard (session {{meta.session_id}})',
        body: 'The output guard blocked a draft reply of the assistant.\n\nSession: {{meta.session_id}}\nGuard: {{input.guard.guardID}}\nReasons: {{input.guard.reasons}}\nThe user was answered: {{input.content}}',
      },
    });
    edges.push(edge('output_guard', 'trust_safety_mail', { port: 'Block', delivery_mode: 'ephemeral' }));
  }
  if (o.handoff) {
    nodes.push(...handoffNodes);
    edges.push(...handoffEdges);
  }
  nodes.push(end, refused);
  const main = ['input_guard', ...chain, ...(o.escalation ? ['escalation'] : []), 'output_guard'];
  const columns: string[][] = [['start'], ...main.map((id) => [id])];
  columns[columns.indexOf(columns.find((c) => c[0] === 'chat')!)].push('chat_failed');
  if (o.escalation) columns[columns.length - 1].push('trust_safety_mail');
  if (o.handoff) {
    columns[columns.findIndex((c) => c[0] === 'input_guard')].push('handoff');
    columns[columns.findIndex((c) => c[0] === chain[0])].push('handoff_filed', 'handoff_needs_email', 'handoff_unavailable');
  }
  columns.push(['end', 'refused']);
  return doc(name, description, nodes, edges, columns);
}

/** multi-guard: two classifiers on each side of the model; the first of each pair fails open, the second closed. */
function multiGuard(): FlowDocument {
  const nodes: FlowNode[] = [
    start,
    guard('input_guard_1', 'Input guard 1 (fails open)', 'input', 'open'),
    guard('input_guard_2', 'Input guard 2 (fails closed)', 'input', 'closed'),
    chatNode(),
    apology,
    guard('output_guard_1', 'Output guard 1 (fails open)', 'output', 'open'),
    guard('output_guard_2', 'Output guard 2 (fails closed)', 'output', 'closed'),
    end,
    refused,
  ];
  const edges: FlowEdge[] = [
    edge('start', 'input_guard_1'),
    ...guardEdges('input_guard_1', 'input_guard_2'),
    ...guardEdges('input_guard_2', 'chat'),
    edge('chat', 'output_guard_1', { port: 'Reply' }),
    edge('chat', 'chat_failed', { port: 'Error' }),
    edge('chat_failed', 'end'),
    ...guardEdges('output_guard_1', 'output_guard_2'),
    edge('output_guard_2', 'end', { port: 'Allow' }),
    edge('output_guard_2', 'end', { port: 'Flag' }),
    edge('output_guard_2', 'refused', { port: 'Block' }),
  ];
  return doc('Assistant (multi-guard)', 'Two classifiers on each side of the chat model; the first of each pair fails open, the second fails closed.', nodes, edges, [
    ['start'],
    ['input_guard_1'],
    ['input_guard_2'],
    ['chat', 'chat_failed'],
    ['output_guard_1'],
    ['output_guard_2'],
    ['end', 'refused'],
  ]);
}

const RAG = [`documents in the index ${DEFAULT_KNOWLEDGE_INDEX} (assistant-ingest or POST /admin/assistant/ingest)`, 'an embedder (the local one by default)'];

/** The eleven templates of the catalog, in tier order. */
export const ASSISTANT_TEMPLATES: readonly AssistantTemplate[] = Object.freeze([
  { name: 'echo', title: 'Echo', description: 'Echoes the latest user message; zero LLM tokens. For wiring checks and load tests.', tier: 'T0', recommended: false, requires: [], document: echo },
  { name: 'minimal', title: 'Minimal', description: 'One chat model call per turn; no safety, grounding or handoff.', tier: 'T1', recommended: false, requires: [], document: minimal },
  {
    name: 'default',
    title: 'Default',
    description: 'Chat model with an input and an output guard, configurable refusals and the handoff branch.',
    tier: 'T2',
    recommended: true,
    requires: [],
    document: guarded('Assistant (default)', 'A chat model between an input and an output guard, with refusals and a handoff to a person.', { handoff: true }),
  },
  {
    name: 'default-stream',
    title: 'Default, streaming',
    description: 'The default template with streamed tokens; the output guard runs once the full draft exists.',
    tier: 'T2s',
    recommended: false,
    requires: [],
    document: guarded('Assistant (default, streaming)', 'The default assistant with streamed tokens.', { handoff: true, stream: true }),
  },
  {
    name: 'production',
    title: 'Production',
    description: 'Default plus a trust-and-safety e-mail on output-guard blocks and [[ESCALATE]] detection that hands the chat to a person.',
    tier: 'T3',
    recommended: false,
    requires: ['SMTP_URL or the dev outbox', 'the setting assistant/trust_safety_to (else site/support_email, else support@localhost)'],
    document: guarded('Assistant (production)', 'The default assistant plus a trust-and-safety mail when the output guard blocks a draft, and a handoff when the model writes [[ESCALATE]].', { handoff: true, escalation: true }),
  },
  { name: 'multi-guard', title: 'Multi-guard', description: 'Two classifiers on each side of the model; the first fails open, the second closed.', tier: 'T3+', recommended: false, requires: [], document: multiGuard() },
  {
    name: 'rag',
    title: 'Retrieval',
    description: 'Default plus retrieval of the top-K chunks of the svc_docs index; cites excerpts by [N].',
    tier: 'T4',
    recommended: false,
    requires: RAG,
    document: guarded('Assistant (retrieval)', 'Answers from the top excerpts of the svc_docs index, citing them as [N]; guards and handoff as in default.', { handoff: true, retrieval: { citations: true } }),
  },
  {
    name: 'rag-clean',
    title: 'Retrieval, clean',
    description: 'Retrieval without inline [N] markers; sources shown in a footer.',
    tier: 'T4b',
    recommended: false,
    requires: RAG,
    document: guarded('Assistant (retrieval, clean)', 'Answers from the svc_docs index without [N] markers; the sources travel beside the answer.', { handoff: true, retrieval: { citations: false } }),
  },
  {
    name: 'rag-stream',
    title: 'Retrieval, streaming',
    description: 'Retrieval with streamed tokens; sources arrive with the final frame.',
    tier: 'T4s',
    recommended: false,
    requires: RAG,
    document: guarded('Assistant (retrieval, streaming)', 'Retrieval with streamed tokens; the sources come with the final message frame.', { handoff: true, stream: true, retrieval: { citations: true } }),
  },
  {
    name: 'qa-only',
    title: 'Q&A only',
    description: 'Stateless single-turn retrieval; every question stands alone.',
    tier: 'T4',
    recommended: false,
    requires: RAG,
    document: guarded('Assistant (Q&A only)', 'Single-turn retrieval: only the latest question reaches retrieval and the model; no handoff.', { singleTurn: true, retrieval: { citations: true } }),
  },
  {
    name: 'rag-rewrite',
    title: 'Retrieval with rewrite',
    description: 'Retrieval with a question-to-query rewrite call before the search.',
    tier: 'T5',
    recommended: false,
    requires: RAG,
    document: guarded('Assistant (retrieval with rewrite)', `A model call rewrites the question into a search query (packet field ${REWRITE_QUERY_KEY}) for retrieval; the chat still sees the original messages.`, {
      handoff: true,
      rewrite: true,
      retrieval: { citations: true, queryKey: REWRITE_QUERY_KEY },
    }),
  },
].map((t) => ({ ...t, id: `assistant/${t.name}` })));

/** The catalog entry named `name`, or undefined. */
export function templateNamed(name: string): AssistantTemplate | undefined {
  return ASSISTANT_TEMPLATES.find((t) => t.name === name);
}

/** A deep copy of a shipped template's document (callers may not change the catalog's). */
export function templateDocument(name: string): FlowDocument | undefined {
  const d = templateNamed(name)?.document;
  return d && (JSON.parse(JSON.stringify(d)) as FlowDocument);
}

/** What the published document lets a client widget offer (rule 3). */
export interface Capabilities {
  handoff: boolean;
  escalation: boolean;
  streaming: boolean;
}

/** Capabilities of a flow document, from its node composition (rule 3). */
export function capabilitiesOf(document: Pick<FlowDocument, 'nodes'> | undefined): Capabilities {
  const nodes = document?.nodes ?? [];
  return {
    handoff: nodes.some((n) => n.action_ref === HANDOFF_NODE_ID),
    escalation: nodes.some((n) => n.action_ref === 'svc/email-send'),
    // As the engine reads it: a version stored before quoted booleans were refused may say "true".
    streaming: nodes.some((n) => n.action_ref === 'svc/llm-chat' && (n.config?.stream === true || (typeof n.config?.stream === 'string' && n.config.stream.trim().toLowerCase() === 'true'))),
  };
}
