import { ANY_PORT, canvasToIr, freshEdgeId, freshNodeId, INPUT_HANDLE, irToCanvas, nodeFromManifest, structuralNode } from './ir-canvas';
import type { FlowDocument, NodeManifest } from './flow-types';

// The bundled flow/echo template, as GET /flows/templates/flow/echo?format=ir answers it.
const echo: FlowDocument = {
  name: 'Echo',
  description: 'Renders a greeting from the input and returns it.',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'render', name: 'Render', kind: 'action', action_ref: 'svc/template-render', config: { template: 'Hello, {{input.name}}!' } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'render' },
    { id: 'e2', from: 'render', to: 'end' },
  ],
  meta: { positions: { start: { x: 0, y: 0 }, render: { x: 240, y: 0 }, end: { x: 480, y: 0 } }, schemaVersion: 1 },
};

const manifests: NodeManifest[] = [
  { id: 'svc/template-render', name: 'Render template', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }], settingsSchema: { type: 'object', properties: { template: { type: 'string', default: 'Hi' } } } },
  { id: 'svc/email-send', name: 'Send email', kind: 'action', inputs: [{ port: 'Email' }], outputs: [{ port: 'Sent' }, { port: 'Error' }] },
];

describe('IR ↔ canvas', () => {
  it('draws each node at its meta.positions entry and each edge between handles', () => {
    const { nodes, edges } = irToCanvas(echo, manifests);
    expect(nodes.map((n) => [n.id, n.position])).toEqual([
      ['start', { x: 0, y: 0 }],
      ['render', { x: 240, y: 0 }],
      ['end', { x: 480, y: 0 }],
    ]);
    expect(nodes[1].data).toMatchObject({ unknown: false, placed: true, outputs: [ANY_PORT] });
    expect(nodes[2].data.outputs).toEqual([]);
    expect(edges[0]).toMatchObject({ id: 'e1', source: 'start', target: 'render', sourceHandle: ANY_PORT, targetHandle: INPUT_HANDLE });
  });

  it('round-trips a document unchanged', () => {
    const doc: FlowDocument = {
      ...echo,
      nodes: [...echo.nodes, { id: 'mail', kind: 'action', action_ref: 'svc/email-send', config: { to: 'a@b.c' }, description: 'kept' }],
      edges: [...echo.edges, { id: 'e3', from: 'render', to: 'mail', port: 'out', delivery_mode: 'checkpoint', condition: 'output.ok == true', packet: 'p' }],
      meta: { ...echo.meta, positions: { ...echo.meta!.positions, mail: { x: 240, y: 160 } }, route: { method: 'post' } },
    };
    const canvas = irToCanvas(doc, manifests);
    expect(canvasToIr(doc, canvas)).toEqual(doc);
  });

  it('keeps an edge without port portless and gives a drawn port to its edge', () => {
    const canvas = irToCanvas(echo, manifests);
    canvas.edges[1] = { ...canvas.edges[1], sourceHandle: 'out' };
    const back = canvasToIr(echo, canvas);
    expect(back.edges[0]).toEqual({ id: 'e1', from: 'start', to: 'render' });
    expect(back.edges[1]).toEqual({ id: 'e2', from: 'render', to: 'end', port: 'out' });
  });

  it('gives a single-output node only the any-port handle, and ports named by its edges', () => {
    const doc: FlowDocument = { nodes: [{ id: 'r', kind: 'action', action_ref: 'svc/template-render' }, { id: 'x', kind: 'end' }], edges: [{ id: 'e', from: 'r', to: 'x', port: 'out' }] };
    expect(irToCanvas(doc, manifests).nodes.map((n) => n.data.outputs)).toEqual([[ANY_PORT, 'out'], []]);
  });

  it('lists declared output ports of multi-output nodes and ports edges name that the manifest lacks', () => {
    const doc: FlowDocument = { nodes: [{ id: 'm', kind: 'action', action_ref: 'svc/email-send' }, { id: 'x', kind: 'end' }], edges: [{ id: 'e', from: 'm', to: 'x', port: 'Bounced' }] };
    expect(irToCanvas(doc, manifests).nodes[0].data.outputs).toEqual([ANY_PORT, 'Sent', 'Error', 'Bounced']);
  });

  it('marks nodes whose action_ref the registry does not know', () => {
    const doc: FlowDocument = { nodes: [{ id: 'a', kind: 'action', action_ref: 'crm/lookup' }], edges: [] };
    expect(irToCanvas(doc, manifests).nodes[0].data.unknown).toBe(true);
  });

  it('places nodes without positions on a grid below the placed ones, and saves their positions', () => {
    const doc: FlowDocument = { nodes: [{ id: 'a', kind: 'start' }, { id: 'b', kind: 'end' }, { id: 'c', kind: 'end' }], edges: [], meta: { positions: { a: { x: 10, y: 50 } } } };
    const canvas = irToCanvas(doc);
    expect(canvas.nodes.map((n) => n.position)).toEqual([{ x: 10, y: 50 }, { x: 0, y: 190 }, { x: 260, y: 190 }]);
    expect(canvas.nodes.map((n) => n.data.placed)).toEqual([true, false, false]);
    expect(canvasToIr(doc, canvas).meta?.positions).toEqual({ a: { x: 10, y: 50 }, b: { x: 0, y: 190 }, c: { x: 260, y: 190 } });
  });

  it('saves moved positions rounded, drops edges of removed nodes, keeps the rest of meta', () => {
    const canvas = irToCanvas(echo, manifests);
    canvas.nodes[0].position = { x: 12.6, y: -3.2 };
    canvas.nodes.splice(2, 1);
    const back = canvasToIr(echo, canvas);
    expect(back.meta).toEqual({ positions: { start: { x: 13, y: -3 }, render: { x: 240, y: 0 } }, schemaVersion: 1 });
    expect(back.edges.map((e) => e.id)).toEqual(['e1']);
    expect(back.nodes.map((n) => n.id)).toEqual(['start', 'render']);
  });

  it('makes fresh ids and new nodes with the settings defaults', () => {
    expect(freshNodeId('svc/email-send', ['email-send', 'email-send-2'])).toBe('email-send-3');
    expect(freshEdgeId('a', 'b', ['e-a-b'])).toBe('e-a-b-2');
    expect(nodeFromManifest(manifests[0], ['template-render'])).toEqual({ id: 'template-render-2', name: 'Render template', kind: 'action', action_ref: 'svc/template-render', config: { template: 'Hi' } });
    expect(nodeFromManifest(manifests[1], [])).toEqual({ id: 'email-send', name: 'Send email', kind: 'action', action_ref: 'svc/email-send' });
    expect(structuralNode('start', ['start'])).toEqual({ id: 'start-2', name: 'Start', kind: 'start' });
    expect(structuralNode('end', [])).toEqual({ id: 'end', name: 'End', kind: 'end' });
  });
});
