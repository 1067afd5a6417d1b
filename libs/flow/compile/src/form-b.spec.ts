import fc from 'fast-check';
import { specToIr, validateSpecDocument, type SpecDocument } from '@flowplane/flow/ir';
import { golden, loadFixture, toJson, toYaml } from '../test/format-helpers';
import { graphOfWorkflows, readFormB, writeFormB } from './form-b';
import type { ApiModel } from './model';

const shop = loadFixture('ir/shop.model.json') as ApiModel;
const support = loadFixture('form-b/support.form-b.yaml') as SpecDocument;

describe('readFormB', () => {
  it('keeps the graph in `flow`, exposes nodes as actions and packets as entities (golden)', () => {
    const result = readFormB(support);
    golden('form-b/support.model.json', toJson(result));
    expect(result.diagnostics).toEqual([]);
    const { model } = result;
    expect(model).toMatchObject({ version: '1.0', title: 'Support triage', apiVersion: '3', description: 'Classifies incoming tickets and answers the simple ones.' });
    expect(model.flow?.nodes).toEqual(support.nodes);
    expect(model.flow?.edges).toEqual(support.edges);
    expect(model.actions[1]).toEqual({ name: 'Classify', description: 'Asks the model for a category', extensions: { 'x-operationId': 'svc/llm-chat', 'x-node-kind': 'llm' } });
    expect(model.entities[0]).toEqual({
      name: 'Ticket',
      description: 'A support ticket',
      fields: {
        id: { type: 'uuid', required: true },
        subject: { type: 'string', required: true },
        category: { type: 'enum', enum: ['simple', 'complex'], nullable: true },
        customer: { type: 'object', fields: { name: { type: 'string' }, email: { type: 'string', format: 'email' } } },
      },
    });
    // `minLength` has no IR field: the packet is also kept verbatim.
    expect(model.entities[1].extensions).toEqual({ 'x-packet': support.components?.packets?.Escalation });
    expect(model.extensions).toEqual({ 'x-id': 'support/triage', 'x-meta': { schemaVersion: 2, publish_with: ['support/answers'] }, 'x-form-b': { info: { 'x-owner': 'support-team' } } });
  });

  it('warns about unknown keys, malformed nodes and edges, and a flowdef other than 1.0', () => {
    const { diagnostics } = readFormB({ flowdef: '2.0', info: { title: 't' }, nodes: { a: 'x' }, edges: [{ from: 'a' }], extra: 1 });
    expect(diagnostics.map((d) => [d.path, d.message])).toEqual([
      ['/flowdef', 'flowdef "2.0" is not 1.0'],
      ['/extra', 'unknown key "extra" ignored'],
      ['/nodes/a', 'a node must be a mapping; left out'],
      ['/edges/0', 'an edge needs string "from" and "to"; left out'],
    ]);
  });

  it('flags unknown node kinds, unknown delivery modes and edges to undefined nodes as errors', () => {
    const { diagnostics } = readFormB({
      flowdef: '1.0',
      info: { title: 't' },
      nodes: { src: { kind: 'source', operationId: 'svc/event-source' }, step: { kind: 'robot' }, bare: {} },
      edges: [
        { from: 'src', to: 'step', delivery: { mode: 'carrier-pigeon' } },
        { from: 'step', to: 'ghost' },
        { from: 'src', to: 'bare', delivery: { mode: 'durable' } },
      ],
    });
    expect(diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([
      ['NODE_KIND', 'error', '/nodes/step/kind'],
      ['NODE_KIND', 'error', '/nodes/bare/kind'],
      ['DELIVERY_MODE', 'error', '/edges/0/delivery/mode'],
      ['UNKNOWN_NODE', 'error', '/edges/1/to'],
    ]);
    expect(diagnostics[0].message).toBe('node "step": kind "robot" is not one of source, action, llm');
    expect(diagnostics[3].message).toBe('edge 1 enters "ghost", which is not a node of this document');
  });

  it('warns about an edge packet that components.packets does not define (UNKNOWN_PACKET)', () => {
    const doc = (packets?: Record<string, unknown>) => ({
      flowdef: '1.0',
      info: { title: 't' },
      nodes: { a: { kind: 'source' }, b: { kind: 'action' } },
      edges: [{ from: 'a', to: 'b', packet: 'Ticket' }, { from: 'a', to: 'b', packet: 'Order' }],
      ...(packets && { components: { packets } }),
    });
    expect(readFormB(doc({ Ticket: { type: 'object' } })).diagnostics).toEqual([
      { code: 'UNKNOWN_PACKET', severity: 'warning', path: '/edges/1/packet', message: 'edge 1: packet "Order" is not defined in components.packets' },
    ]);
    expect(readFormB(doc()).diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['UNKNOWN_PACKET', '/edges/0/packet'],
      ['UNKNOWN_PACKET', '/edges/1/packet'],
    ]);
    expect(readFormB(support).diagnostics).toEqual([]);
  });
});

describe('form B → IR → form B', () => {
  it('is lossless for the support document, down to the YAML text', () => {
    const written = writeFormB(readFormB(support).model).document;
    expect(written).toEqual(support);
    expect(toYaml(written)).toBe(toYaml(support));
  });

  it('is lossless for any form B document (property)', () => {
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _./-]{0,8}$/);
    const ext = fc.dictionary(fc.stringMatching(/^x-[a-z]{1,6}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 });
    const schema = fc.oneof(
      fc.record({ type: fc.constant('object'), properties: fc.dictionary(name, fc.record({ type: fc.constantFrom('string', 'integer', 'boolean') }), { maxKeys: 3 }) }),
      fc.record({ type: fc.constant('object'), description: fc.string(), properties: fc.constant({}), minProperties: fc.nat(3) }),
      fc.jsonValue({ maxDepth: 2 }).map((v) => ({ type: 'object', default: v })),
    );
    const spec = fc
      .record({
        flowdef: fc.constantFrom<unknown>('1.0', '1.0', 1, '1.1'),
        info: fc.tuple(fc.record({ title: fc.string(), version: fc.string(), description: fc.string() }, { requiredKeys: ['title'] }), ext).map(([i, x]) => ({ ...i, ...x })),
        servers: fc.dictionary(name, fc.tuple(fc.record({ url: fc.webUrl(), protocol: fc.constantFrom('kafka', 'http'), description: fc.string() }, { requiredKeys: ['url'] }), ext).map(([s, x]) => ({ ...s, ...x })), { maxKeys: 2 }),
        nodes: fc.dictionary(
          name,
          fc.tuple(fc.record({ operationId: name, kind: fc.constantFrom('source', 'action', 'llm'), summary: fc.string() }, { requiredKeys: ['kind'] }), ext).map(([n, x]) => ({ ...n, ...x })),
          { maxKeys: 4 },
        ),
        components: fc.record({ packets: fc.dictionary(name, schema, { maxKeys: 3 }) }, { requiredKeys: [] }),
        top: ext,
      }, { requiredKeys: ['flowdef', 'info', 'nodes'] })
      .chain(({ top, ...doc }) => {
        const keys = Object.keys(doc.nodes);
        const edge = keys.length
          ? fc.record({ from: fc.constantFrom(...keys), to: fc.constantFrom(...keys), delivery: fc.record({ mode: fc.constantFrom('direct', 'durable', 'stream') }), packet: name, 'x-id': name }, { requiredKeys: ['from', 'to'] })
          : fc.constant(undefined);
        return fc.array(edge, { maxLength: keys.length ? 4 : 0 }).map((edges) => ({ ...doc, edges, ...top }) as unknown as SpecDocument);
      });
    fc.assert(
      fc.property(spec, (doc) => {
        const input = JSON.parse(JSON.stringify(doc)) as SpecDocument;
        // Compared with the JSON copy: JSON cannot carry -0, which the arbitrary may generate.
        expect(writeFormB(readFormB(input).model).document).toEqual(input);
      }),
      { numRuns: 300 },
    );
  });
});

describe('writeFormB', () => {
  it('derives a graph from the workflows when the model has no flow (golden), which the flow validator accepts', () => {
    const { document, diagnostics } = writeFormB(shop);
    expect(diagnostics).toEqual([]);
    golden('form-b/shop.form-b.yaml', toYaml(document));
    expect(document.nodes.on_OrderPlaced).toEqual({
      operationId: 'svc/event-source',
      kind: 'source',
      summary: 'Starts checkout on OrderPlaced',
      'x-config': { eventName: 'order.placed', groupID: 'checkout' },
    });
    expect(document.nodes.announce).toEqual({ kind: 'action', operationId: 'svc/emit-event', 'x-config': { topic: 'shop.orders.paid' } });
    expect(document.edges).toEqual([
      { from: 'on_OrderPlaced', to: 'charge' },
      { from: 'charge', to: 'notify' },
      { from: 'charge', to: 'cancel', 'x-port': 'Error' },
      { from: 'notify', to: 'announce' },
      { from: 'announce', to: 'done' },
      { from: 'cancel', to: 'done' },
    ]);
    const result = validateSpecDocument(document);
    expect(result.errors).toEqual([]);
    // The end step reads back as an end node in the runtime's flow document.
    expect(specToIr(document).nodes.find((n) => n.id === 'done')?.kind).toBe('end');
  });

  it('prefixes node keys with the workflow name when there are several workflows, and reports unknown step targets', () => {
    const model: ApiModel = {
      ...shop,
      workflows: [
        { name: 'a', steps: [{ id: 's', kind: 'action', action: 'listProducts', next: 'nope' }] },
        { name: 'b', triggers: ['ProductPriced'], steps: [{ id: 's', kind: 'end' }] },
      ],
    };
    const diagnostics: import('./model').Diagnostic[] = [];
    const graph = graphOfWorkflows(model, diagnostics);
    expect(Object.keys(graph.nodes)).toEqual(['a.s', 'b.on_ProductPriced', 'b.s']);
    expect(graph.nodes['a.s']).toEqual({ kind: 'action', operationId: 'listProducts', summary: 'Lists the products.\nFiltered by tag when given.' });
    expect(diagnostics).toEqual([{ code: 'FMT', severity: 'warning', path: '/workflows/0/steps/0/next', message: 'unknown step "nope"; no edge written' }]);
  });

  it('writes packets from entities', () => {
    const packets = writeFormB(shop).document.components?.packets ?? {};
    expect(Object.keys(packets)).toEqual(['product', 'order']);
    expect(packets.product).toMatchObject({ type: 'object', description: 'A product of the catalogue', required: ['sku', 'title', 'price'] });
  });
});
