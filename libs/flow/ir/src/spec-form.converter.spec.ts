import type { FlowDocument, FlowNode, NodeKind } from './flow-document';
import { parseFlowDocumentText, stringifyFlowDocumentText } from './flow-document.parser';
import type { SpecDocument } from './spec-document';
import { validateSpecDocument } from './spec-document.validator';
import { validateFlowDocument } from './flow-document.validator';
import { irToSpec, isLlmActionRef, specKindOf, specToIr } from './spec-form.converter';

/** echo: start, template-render, end (assistant spec, tier "echo"). */
const echo: FlowDocument = {
  id: 'assistant/echo',
  name: 'Echo',
  description: 'Echoes the latest user message',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'render', name: 'Render reply', kind: 'action', action_ref: 'svc/template-render', config: { template: '{{input.messages.-1.content}}' } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'render' },
    { id: 'e2', from: 'render', to: 'end' },
  ],
  meta: { positions: { start: { x: 0, y: 0 }, render: { x: 240, y: 0 }, end: { x: 480, y: 0 } }, schemaVersion: 1 },
};

/** An event-source flow with a multi-output node, conditions, an ephemeral fan-out and packets. */
const signup: FlowDocument = {
  id: 'users/welcome',
  name: 'Welcome',
  nodes: [
    { id: 'src', name: 'User created', kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'user.created', groupID: 'flow-welcome' } },
    { id: 'guard', name: 'Guard', description: 'Refuses spam sign-ups', kind: 'action', action_ref: 'acme/llm-guard', config: { role: 'input', onError: 'open' } },
    { id: 'mail', name: 'Send mail', kind: 'action', action_ref: 'svc/email-send', config: { to: '{{packet.email}}', subject: 'Welcome' } },
    { id: 'emit', name: 'Emit', kind: 'action', action_ref: 'svc/emit-event', config: { topic: 'users.welcomed' } },
    { id: 'split', kind: 'parallel' },
    { id: 'ok', name: 'Done', kind: 'end' },
    { id: 'rejected', name: 'Done', kind: 'end' },
  ],
  edges: [
    { id: 'a', from: 'src', to: 'guard', delivery_mode: 'durable', packet: 'User' },
    { id: 'b', from: 'guard', to: 'split', port: 'Allow', condition: 'port == "Allow"' },
    { id: 'c', from: 'guard', to: 'rejected', condition: 'true' },
    { id: 'd', from: 'split', to: 'mail', delivery_mode: 'ephemeral' },
    { id: 'e', from: 'split', to: 'emit', delivery_mode: 'checkpoint' },
    { id: 'f', from: 'emit', to: 'ok' },
  ],
  meta: {
    positions: { src: { x: 0, y: 0 }, guard: { x: 200, y: 0 }, mail: { x: 400, y: -100 }, emit: { x: 400, y: 100 }, split: { x: 300, y: 0 }, ok: { x: 600, y: 0 }, rejected: { x: 600, y: 200 } },
    packets: { User: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] } },
    publish_with: ['users/welcome-mail'],
    schemaVersion: 3,
    route: { method: 'POST', path: '/welcome' },
  },
};

describe('irToSpec', () => {
  it('writes form B with x- extensions for what form B cannot say', () => {
    expect(irToSpec(echo)).toEqual({
      flowdef: '1.0',
      info: { title: 'Echo', description: 'Echoes the latest user message' },
      nodes: {
        Start: { kind: 'source', 'x-id': 'start', 'x-position': { x: 0, y: 0 } },
        'Render reply': { operationId: 'svc/template-render', kind: 'action', 'x-id': 'render', 'x-config': { template: '{{input.messages.-1.content}}' }, 'x-position': { x: 240, y: 0 } },
        End: { kind: 'action', 'x-id': 'end', 'x-kind': 'end', 'x-position': { x: 480, y: 0 } },
      },
      edges: [
        { from: 'Start', to: 'Render reply', 'x-id': 'e1' },
        { from: 'Render reply', to: 'End', 'x-id': 'e2' },
      ],
      'x-id': 'assistant/echo',
      'x-meta': { schemaVersion: 1 },
    } satisfies SpecDocument);
  });

  it('maps edges: node names, delivery mode, packet, condition and port', () => {
    const spec = irToSpec(signup);
    expect(spec.edges[0]).toEqual({ from: 'User created', to: 'Guard', delivery: { mode: 'durable' }, packet: 'User', 'x-id': 'a' });
    expect(spec.edges[1]).toEqual({ from: 'Guard', to: 'split', 'x-id': 'b', 'x-condition': 'port == "Allow"', 'x-port': 'Allow' });
    expect(spec.components).toEqual({ packets: signup.meta!.packets });
    expect(spec['x-meta']).toEqual({ publish_with: ['users/welcome-mail'], schemaVersion: 3, route: { method: 'POST', path: '/welcome' } });
  });

  it.each<[NodeKind, string | undefined, boolean, string, NodeKind | undefined]>([
    ['start', undefined, true, 'source', undefined],
    ['start', 'svc/event-source', true, 'source', undefined],
    ['event', undefined, true, 'source', 'event'],
    ['action', 'svc/template-render', true, 'action', undefined],
    ['action', 'svc/llm-chat', true, 'llm', undefined],
    ['action', 'svc/llm-chat', false, 'llm', undefined],
    ['end', undefined, false, 'action', 'end'],
    ['end', undefined, true, 'action', 'end'],
    ['end', 'svc/router', false, 'action', 'end'],
    ['gateway', undefined, true, 'action', 'gateway'],
    ['condition', undefined, true, 'action', 'condition'],
    ['wait', 'svc/delay', true, 'action', 'wait'],
    ['parallel', undefined, true, 'action', 'parallel'],
  ])('kind %s (ref %s, outgoing edge %s) → %s with x-kind %s', (kind, ref, outgoing, specKind, xKind) => {
    const node: FlowNode = { id: 'n', name: 'n', kind, ...(ref && { action_ref: ref }) };
    const doc: FlowDocument = { nodes: [node, { id: 'o', name: 'o', kind: 'start' }], edges: outgoing ? [{ id: 'e', from: 'n', to: 'o' }] : [] };
    const spec = irToSpec(doc);
    expect(spec.nodes.n.kind).toBe(specKind);
    expect(spec.nodes.n['x-kind']).toBe(xKind);
    expect(specToIr(spec).nodes[0]).toEqual(node);
  });

  it('recognises LLM nodes by the last segment of the ref', () => {
    expect(['svc/llm-chat', 'acme/llm-guard', 'llm', 'x/LLM_rewrite'].map(isLlmActionRef)).toEqual([true, true, true, true]);
    expect(['svc/template-render', 'svc/llmish', 'llm-chat/router', 'svc/allm-x'].map(isLlmActionRef)).toEqual([false, false, false, false]);
    expect(specKindOf({ kind: 'wait', action_ref: 'svc/llm-chat' })).toBe('action');
  });

  it('derives unique node names from name or id, keeping node order', () => {
    const doc: FlowDocument = {
      nodes: [
        { id: 'a', name: 'Send', kind: 'start' },
        { id: 'b', name: 'Send', kind: 'wait' },
        { id: 'Send_2', kind: 'wait' },
        { id: 'c', name: '', kind: 'wait' },
        { id: 'd', name: '  ', kind: 'wait' },
        { id: '2', kind: 'wait' },
        { id: 'e', name: '10', kind: 'wait' },
        { id: 'f', name: '__proto__', kind: 'wait' },
        { id: 'g', name: 'a/b ~ c', kind: 'wait' },
      ],
      edges: [],
    };
    const spec = irToSpec(doc);
    expect(Object.keys(spec.nodes)).toEqual(['Send', 'Send_2', 'Send_2_2', 'c', 'd', 'node_2', 'node_10', '__proto__', 'a/b ~ c']);
    expect(Object.values(spec.nodes).map((n) => [n['x-id'], n['x-name']])).toEqual([
      ['a', undefined],
      ['b', 'Send'],
      ['Send_2', null],
      ['c', ''],
      ['d', '  '],
      ['2', null],
      ['e', '10'],
      ['f', undefined],
      ['g', undefined],
    ]);
    expect(Object.getPrototypeOf(spec.nodes)).toBe(Object.prototype);
    expect(specToIr(spec)).toEqual(doc);
  });

  it('falls back to the id or "Untitled flow" for the title and records the missing name', () => {
    expect(irToSpec({ id: 'f1', nodes: [], edges: [] })).toMatchObject({ info: { title: 'f1' }, 'x-id': 'f1', 'x-name': null });
    expect(irToSpec({ nodes: [], edges: [] })).toMatchObject({ info: { title: 'Untitled flow' }, 'x-name': null });
    expect(specToIr(irToSpec({ nodes: [], edges: [] }))).toEqual({ nodes: [], edges: [] });
  });

  it.each<[string, FlowDocument['meta'], Partial<SpecDocument>]>([
    ['empty meta', {}, { 'x-meta': {} }],
    ['empty positions', { positions: {} }, { 'x-meta': { positions: {} } }],
    ['positions of nodes only', { positions: { s: { x: 1, y: 2 } } }, {}],
    ['a stale position', { positions: { s: { x: 1, y: 2 }, gone: { x: 0, y: 0 } } }, { 'x-meta': { positions: { gone: { x: 0, y: 0 } } } }],
    ['a version string', { version: '2.1.0' }, { info: { title: 'T', version: '2.1.0' } }],
    ['a non-string version', { version: 2 }, { 'x-meta': { version: 2 } }],
    ['servers', { servers: { prod: { url: 'kafka://broker:9092', protocol: 'kafka' } } }, { servers: { prod: { url: 'kafka://broker:9092', protocol: 'kafka' } } }],
    ['servers of another shape', { servers: ['kafka'] }, { 'x-meta': { servers: ['kafka'] } }],
    ['packets', { packets: { P: { type: 'string' } } }, { components: { packets: { P: { type: 'string' } } } }],
  ])('keeps %s of meta', (_name, meta, expected) => {
    const doc: FlowDocument = { name: 'T', nodes: [{ id: 's', kind: 'start' }], edges: [], meta };
    const spec = irToSpec(doc);
    expect(spec).toMatchObject(expected);
    if (!('x-meta' in expected)) expect(spec['x-meta']).toBeUndefined();
    expect(specToIr(spec)).toEqual(doc);
  });

  it('never shares objects with its input', () => {
    const doc = structuredClone(signup);
    const spec = irToSpec(doc);
    (spec.nodes['User created']['x-config'] as Record<string, unknown>).eventName = 'changed';
    spec.nodes.Guard['x-position']!.x = 999;
    (spec.components!.packets!.User as Record<string, unknown>).type = 'string';
    (spec['x-meta']!.publish_with as string[]).push('x');
    expect(doc).toEqual(signup);
    const back = specToIr(irToSpec(doc));
    back.nodes[0].config!.eventName = 'changed';
    expect(doc).toEqual(signup);
  });
});

describe('specToIr on hand-written documents', () => {
  const handWritten = `
flowdef: 1.0
info:
  title: Echo
  version: 1.0.0
  description: Echoes the latest user message
nodes:
  start:
    kind: source
    summary: Receives the chat turn
  render:
    operationId: svc/template-render
    kind: action
    summary: Renders the reply
  done:
    kind: action
edges:
  - from: start
    to: render
  - from: render
    to: done
    delivery: {mode: direct}
    packet: Reply
components:
  packets:
    Reply:
      type: object
      properties: {content: {type: string}}
      required: [content]
`;

  it('derives ids, names, kinds and edge ids; an action with no operationId and no way out is an end', () => {
    const spec = parseFlowDocumentText(handWritten) as unknown as SpecDocument;
    expect(specToIr(spec)).toEqual({
      name: 'Echo',
      description: 'Echoes the latest user message',
      nodes: [
        { id: 'start', name: 'start', description: 'Receives the chat turn', kind: 'start' },
        { id: 'render', name: 'render', description: 'Renders the reply', kind: 'action', action_ref: 'svc/template-render' },
        { id: 'done', name: 'done', kind: 'end' },
      ],
      edges: [
        { id: 'start->render', from: 'start', to: 'render' },
        { id: 'render->done', from: 'render', to: 'done', delivery_mode: 'direct', packet: 'Reply' },
      ],
      meta: { version: '1.0.0', packets: { Reply: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] } } },
    });
  });

  it('validates, with a warning per node that has no position', () => {
    const res = validateSpecDocument(parseFlowDocumentText(handWritten));
    expect(res.ok).toBe(true);
    expect(res.errors).toEqual([]);
    expect(res.warnings.map((w) => [w.path, w.code])).toEqual([
      ['/nodes/start/x-position', 'MISSING_POSITION'],
      ['/nodes/render/x-position', 'MISSING_POSITION'],
      ['/nodes/done/x-position', 'MISSING_POSITION'],
    ]);
    expect(res.ir).toEqual(specToIr(res.document!));
  });

  it('reads llm nodes as actions, and x-action-ref over operationId', () => {
    const ir = specToIr({
      flowdef: '1.0',
      info: { title: 'Chat' },
      nodes: {
        in: { kind: 'source', operationId: 'svc/event-source', 'x-config': { eventName: 'chat.message', groupID: 'chat' } },
        chat: { kind: 'llm', operationId: 'svc/llm-chat', 'x-config': { stream: true } },
        mail: { kind: 'action', operationId: 'sendWelcome', 'x-action-ref': 'svc/email-send' },
        out: { kind: 'action' },
      },
      edges: [
        { from: 'in', to: 'chat' },
        { from: 'chat', to: 'mail', delivery: { mode: 'stream' }, 'x-condition': 'output.ok == true', 'x-port': 'Out' },
        { from: 'chat', to: 'out' },
        { from: 'chat', to: 'out' },
      ],
    });
    expect(ir.nodes).toEqual([
      { id: 'in', name: 'in', kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'chat.message', groupID: 'chat' } },
      { id: 'chat', name: 'chat', kind: 'action', action_ref: 'svc/llm-chat', config: { stream: true } },
      { id: 'mail', name: 'mail', kind: 'action', action_ref: 'svc/email-send' },
      { id: 'out', name: 'out', kind: 'end' },
    ]);
    expect(ir.edges.map((e) => e.id)).toEqual(['in->chat', 'chat->mail', 'chat->out', 'chat->out_2']);
    expect(ir.edges[1]).toEqual({ id: 'chat->mail', from: 'chat', to: 'mail', port: 'Out', delivery_mode: 'stream', condition: 'output.ok == true' });
    expect(ir.meta).toBeUndefined();
    expect(validateFlowDocument(ir).errors).toEqual([]);
  });

  it('keeps explicit x-ids and derives the others around them', () => {
    const ir = specToIr({
      flowdef: '1.0',
      info: { title: 'T' },
      nodes: { a: { kind: 'source', 'x-id': 'b' }, b: { kind: 'action', operationId: 'svc/router' }, c: { kind: 'action', 'x-id': 'a' } },
      edges: [{ from: 'a', to: 'b', 'x-id': 'a->b_2' }, { from: 'a', to: 'b' }, { from: 'b', to: 'c' }],
    });
    expect(ir.nodes.map((n) => [n.id, n.name])).toEqual([
      ['b', 'a'],
      ['b_2', 'b'],
      ['a', 'c'],
    ]);
    expect(ir.edges.map((e) => [e.id, e.from, e.to])).toEqual([
      ['a->b_2', 'b', 'b_2'],
      ['b->b_2', 'b', 'b_2'],
      ['b_2->a', 'b_2', 'a'],
    ]);
  });
});

describe('IR → spec → IR on hand-written documents', () => {
  it.each([
    ['echo', echo],
    ['event-source welcome flow', signup],
  ])('%s is lossless, also through YAML and JSON text', (_name, doc) => {
    const spec = irToSpec(doc);
    expect(specToIr(spec)).toEqual(doc);
    expect(validateSpecDocument(spec)).toMatchObject({ ok: true, errors: [] });
    expect(validateSpecDocument(spec).warnings).toEqual(validateFlowDocument(doc).warnings.map((w) => expect.objectContaining({ code: w.code })));
    for (const format of ['yaml', 'json'] as const) {
      const text = stringifyFlowDocumentText(spec, format);
      const parsed = parseFlowDocumentText(text, format === 'json' ? 'application/json' : undefined) as unknown as SpecDocument;
      expect(specToIr(parsed)).toEqual(doc);
    }
  });

  it('spec → IR → spec is stable for a spec written by irToSpec', () => {
    const spec = irToSpec(signup);
    expect(irToSpec(specToIr(spec))).toEqual(spec);
  });
});
