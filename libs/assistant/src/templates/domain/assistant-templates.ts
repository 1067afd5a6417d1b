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
export const TEMPLATE_SCHEMA_VERSION = 1;

const start: FlowNode = { id: 'start', name: 'Start', kind: 'start' };
const end: FlowNode = { id: 'end', name: 'End', kind: 'end' };
const refused: FlowNode = { id: 'refused', name: 'Refused', kind: 'end', config: { status: 'rejected' } };
const render = (id: string, name: string, template: string): FlowNode => ({ id, name, kind: 'action', action_ref: 'svc/template-render', config: { template, target: 'content' } });
const edge = (from: string, to: string, extra: Partial<FlowEdge> = {}): FlowEdge => ({ id: `${from}-${extra.port ?? 'out'}-${to}`, from, to, ...extra });

function doc(name: string, description: string, nodes: FlowNode[], edges: FlowEdge[]): FlowDocument {
  return { name, description, nodes, edges, meta: { schemaVersion: TEMPLATE_SCHEMA_VERSION, assistantTemplate: name } };
}

const echo = doc(
  'Assistant (echo)',
  'Echoes the latest user message; no model, zero tokens.',
  [start, render('echo', 'Echo', '{{input.message}}'), end],
  [edge('start', 'echo'), edge('echo', 'end')],
);

const minimal = doc(
  'Assistant (minimal)',
  'One chat model call per turn; no guards, grounding or handoff.',
  [start, { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { systemPrompt: 'You are a helpful assistant.' } }, end],
  [edge('start', 'chat'), edge('chat', 'end', { port: 'Reply' })],
);

/** default and default-stream: guards on both sides, refusals, and the handoff branch (rule 4). */
function guarded(stream: boolean): FlowDocument {
  const nodes: FlowNode[] = [
    start,
    { id: 'input_guard', name: 'Input guard', kind: 'gateway', action_ref: 'svc/guard', config: { guardID: 'llm-classifier', role: 'input', onError: 'open' } },
    { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { systemPrompt: 'You are a helpful assistant. Answer in the language of the user.', stream } },
    { id: 'output_guard', name: 'Output guard', kind: 'gateway', action_ref: 'svc/guard', config: { guardID: 'llm-classifier', role: 'output', onError: 'open' } },
    render('chat_failed', 'Apology', 'Sorry, I cannot answer right now. Please try again in a moment.'),
    { id: 'handoff', name: 'Handoff', kind: 'action', action_ref: HANDOFF_NODE_ID, config: {} },
    render('handoff_filed', 'Handoff confirmation', 'Thank you. A person from our team will contact you at {{meta.email}}.'),
    render('handoff_needs_email', 'Ask for an e-mail', 'To reach a person, please give an e-mail address where we can contact you.'),
    end,
    refused,
  ];
  const edges: FlowEdge[] = [
    edge('start', 'handoff', { condition: "meta.intent == 'handoff'" }),
    edge('start', 'input_guard'),
    edge('input_guard', 'chat', { port: 'Allow' }),
    edge('input_guard', 'chat', { port: 'Flag' }),
    edge('input_guard', 'refused', { port: 'Block' }),
    edge('chat', 'output_guard', { port: 'Reply' }),
    edge('chat', 'chat_failed', { port: 'Error' }),
    edge('chat_failed', 'end'),
    edge('output_guard', 'end', { port: 'Allow' }),
    edge('output_guard', 'end', { port: 'Flag' }),
    edge('output_guard', 'refused', { port: 'Block' }),
    edge('handoff', 'handoff_filed', { port: 'Handoff' }),
    edge('handoff', 'handoff_needs_email', { port: 'Error' }),
    edge('handoff_filed', 'end'),
    edge('handoff_needs_email', 'end'),
  ];
  return stream
    ? doc('Assistant (default, streaming)', 'The default assistant with streamed tokens.', nodes, edges)
    : doc('Assistant (default)', 'A chat model between an input and an output guard, with refusals and a handoff to a person.', nodes, edges);
}

const RAG = ['vector database', 'embedder'];

/** The eleven templates of the catalog, in tier order. */
export const ASSISTANT_TEMPLATES: readonly AssistantTemplate[] = Object.freeze([
  { name: 'echo', title: 'Echo', description: 'Echoes the latest user message; zero LLM tokens. For wiring checks and load tests.', tier: 'T0', recommended: false, requires: [], document: echo },
  { name: 'minimal', title: 'Minimal', description: 'One chat model call per turn; no safety, grounding or handoff.', tier: 'T1', recommended: false, requires: [], document: minimal },
  { name: 'default', title: 'Default', description: 'Chat model with an input and an output guard, configurable refusals and the handoff branch.', tier: 'T2', recommended: true, requires: [], document: guarded(false) },
  { name: 'default-stream', title: 'Default, streaming', description: 'The default template with streamed tokens; the output guard runs once the full draft exists.', tier: 'T2s', recommended: false, requires: [], document: guarded(true) },
  { name: 'production', title: 'Production', description: 'Default plus a trust-and-safety e-mail on output-guard blocks and [[ESCALATE]] detection.', tier: 'T3', recommended: false, requires: ['SMTP'] },
  { name: 'multi-guard', title: 'Multi-guard', description: 'Two classifiers on each side of the model; the first fails open, the second closed.', tier: 'T3+', recommended: false, requires: [] },
  { name: 'rag', title: 'Retrieval', description: 'Default plus retrieval of the top-K chunks of the svc_docs index; cites excerpts by [N].', tier: 'T4', recommended: false, requires: RAG },
  { name: 'rag-clean', title: 'Retrieval, clean', description: 'Retrieval without inline [N] markers; sources shown in a footer.', tier: 'T4b', recommended: false, requires: RAG },
  { name: 'rag-stream', title: 'Retrieval, streaming', description: 'Retrieval with streamed tokens; sources arrive with the final frame.', tier: 'T4s', recommended: false, requires: RAG },
  { name: 'qa-only', title: 'Q&A only', description: 'Stateless single-turn retrieval; every question stands alone.', tier: 'T4', recommended: false, requires: RAG },
  { name: 'rag-rewrite', title: 'Retrieval with rewrite', description: 'Retrieval with a question-to-query rewrite call before the search.', tier: 'T5', recommended: false, requires: RAG },
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
    streaming: nodes.some((n) => n.action_ref === 'svc/llm-chat' && n.config?.stream === true),
  };
}
