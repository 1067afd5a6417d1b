import { FLOW_ISSUE_CODES as C } from './flow-issue.codes';
import { parseFlowDocumentText } from './flow-document.parser';
import { validateSpecDocument } from './spec-document.validator';
import { specToIr } from './spec-form.converter';
import type { SpecDocument } from './spec-document';

type Doc = Record<string, any>;

/** A valid hand-written form-B document. */
function spec(): Doc {
  return {
    flowdef: '1.0',
    info: { title: 'Welcome', version: '1.0.0' },
    servers: { prod: { url: 'kafka://broker:9092', protocol: 'kafka' } },
    nodes: {
      'User created': { kind: 'source', operationId: 'svc/event-source', 'x-id': 'src', 'x-config': { eventName: 'user.created', groupID: 'g' }, 'x-position': { x: 0, y: 0 } },
      Render: { kind: 'action', operationId: 'svc/template-render', summary: 'Renders the greeting', 'x-config': { template: 'Hi' }, 'x-position': { x: 200, y: 0 } },
      Done: { kind: 'action', 'x-position': { x: 400, y: 0 } },
    },
    edges: [
      { from: 'User created', to: 'Render', packet: 'User' },
      { from: 'Render', to: 'Done', delivery: { mode: 'checkpoint' }, 'x-condition': 'port == "Out"', 'x-port': 'Out' },
    ],
    components: { packets: { User: { type: 'object' } } },
    'x-meta': { schemaVersion: 1, publish_with: [] },
  };
}

const issue = (path: string, code: string, severity: 'error' | 'warning' = 'error') => expect.objectContaining({ path, code, severity });

describe('validateSpecDocument', () => {
  it('accepts a valid hand-written document and returns it with its IR', () => {
    const doc = spec();
    const res = validateSpecDocument(doc);
    expect(res).toMatchObject({ ok: true, errors: [], warnings: [] });
    expect(res.document).toBe(doc);
    expect(res.ir).toEqual(specToIr(doc as SpecDocument));
    expect(res.ir!.nodes.map((n) => [n.id, n.kind])).toEqual([
      ['src', 'start'],
      ['Render', 'action'],
      ['Done', 'end'],
    ]);
  });

  it('accepts an unquoted YAML `flowdef: 1.0` and x- extensions anywhere', () => {
    const doc = spec();
    doc.flowdef = parseFlowDocumentText('flowdef: 1.0').flowdef;
    expect(doc.flowdef).toBe(1);
    doc['x-owner'] = 'users';
    doc.info['x-logo'] = 'a.png';
    doc.nodes.Render['x-note'] = { any: 'thing' };
    doc.edges[0]['x-label'] = 'go';
    doc.edges[1].delivery['x-retries'] = 3;
    doc.servers.prod['x-auth'] = 'sasl';
    doc.components['x-schemas'] = {};
    expect(validateSpecDocument(doc)).toMatchObject({ ok: true, errors: [], warnings: [] });
  });

  const cases: Array<[string, (d: Doc) => void, string, string, ('error' | 'warning')?]> = [
    ['flowdef of another version', (d) => (d.flowdef = '2.0'), '/flowdef', C.UNSUPPORTED_VERSION],
    ['flowdef missing', (d) => delete d.flowdef, '/flowdef', C.MISSING_FIELD],
    ['info missing', (d) => delete d.info, '/info', C.MISSING_FIELD],
    ['title missing', (d) => delete d.info.title, '/info/title', C.MISSING_FIELD],
    ['info version not a string', (d) => (d.info.version = 1), '/info/version', C.INVALID_TYPE],
    ['unknown top-level field', (d) => (d.paths = {}), '/paths', C.UNKNOWN_FIELD],
    ['x-id empty', (d) => (d['x-id'] = ''), '/x-id', C.INVALID_VALUE],
    ['x-name a number', (d) => (d['x-name'] = 3), '/x-name', C.INVALID_TYPE],
    ['server without url', (d) => delete d.servers.prod.url, '/servers/prod/url', C.MISSING_FIELD],
    ['nodes missing', (d) => delete d.nodes, '/nodes', C.MISSING_FIELD],
    ['nodes a list', (d) => (d.nodes = []), '/nodes', C.INVALID_TYPE],
    ['node kind missing', (d) => delete d.nodes.Render.kind, '/nodes/Render/kind', C.MISSING_FIELD],
    ['node kind unknown', (d) => (d.nodes.Render.kind = 'sink'), '/nodes/Render/kind', C.INVALID_VALUE],
    ['misspelt node field', (d) => (d.nodes.Render.operation = 'svc/x'), '/nodes/Render/operation', C.UNKNOWN_FIELD],
    ['x-kind unknown', (d) => (d.nodes.Render['x-kind'] = 'task'), '/nodes/Render/x-kind', C.INVALID_VALUE],
    ['x-config not an object', (d) => (d.nodes.Render['x-config'] = 'template'), '/nodes/Render/x-config', C.INVALID_TYPE],
    ['x-position without y', (d) => delete d.nodes.Render['x-position'].y, '/nodes/Render/x-position/y', C.MISSING_FIELD],
    ['empty node name', (d) => (d.nodes[''] = { kind: 'action', operationId: 'svc/x' }), '/nodes/', C.INVALID_VALUE],
    ['edge from an unknown node', (d) => (d.edges[0].from = 'Nobody'), '/edges/0/from', C.UNKNOWN_NODE],
    ['edge without to', (d) => delete d.edges[0].to, '/edges/0/to', C.MISSING_FIELD],
    ['delivery mode unknown', (d) => (d.edges[1].delivery.mode = 'async'), '/edges/1/delivery/mode', C.INVALID_VALUE],
    ['delivery without mode', (d) => (d.edges[1].delivery = {}), '/edges/1/delivery/mode', C.MISSING_FIELD],
    ['x-condition not a string', (d) => (d.edges[1]['x-condition'] = 1), '/edges/1/x-condition', C.INVALID_TYPE],
    ['x-port empty', (d) => (d.edges[1]['x-port'] = ''), '/edges/1/x-port', C.INVALID_VALUE],
    ['misspelt edge field', (d) => (d.edges[1].condition = 'true'), '/edges/1/condition', C.UNKNOWN_FIELD],
    ['packets not schemas', (d) => (d.components.packets.User = true), '/components/packets/User', C.INVALID_TYPE],
    ['unknown components field', (d) => (d.components.schemas = {}), '/components/schemas', C.UNKNOWN_FIELD],
    ['x-meta schemaVersion not a number', (d) => (d['x-meta'].schemaVersion = '1'), '/x-meta/schemaVersion', C.INVALID_TYPE],
    ['x-meta publish_with not a list', (d) => (d['x-meta'].publish_with = 'a'), '/x-meta/publish_with', C.INVALID_TYPE],
    ['action with a way out but no operationId', (d) => delete d.nodes.Render.operationId, '/nodes/Render/operationId', C.MISSING_FIELD],
    ['x-kind action without operationId', (d) => (d.nodes.Done['x-kind'] = 'action'), '/nodes/Done/operationId', C.MISSING_FIELD],
    ['duplicate x-id', (d) => (d.nodes.Done['x-id'] = 'src'), '/nodes/Done/x-id', C.DUPLICATE_ID],
    ['duplicate edge x-id', (d) => ((d.edges[0]['x-id'] = 'e'), (d.edges[1]['x-id'] = 'e')), '/edges/1/x-id', C.DUPLICATE_ID],
    ['no source node', (d) => (d.nodes['User created'].kind = 'action'), '/nodes', C.NO_START_NODE],
    ['edge leaving the end node', (d) => ((d.nodes.Done['x-kind'] = 'end'), d.edges.push({ from: 'Done', to: 'Render' })), '/edges/2/from', C.END_NODE_HAS_OUTGOING_EDGE, 'warning'],
    ['packet not in components', (d) => delete d.components, '/edges/0/packet', C.UNKNOWN_PACKET, 'warning'],
    ['node without x-position', (d) => delete d.nodes.Render['x-position'], '/nodes/Render/x-position', C.MISSING_POSITION, 'warning'],
    ['stale position in x-meta', (d) => (d['x-meta'].positions = { ghost: { x: 0, y: 0 } }), '/x-meta/positions/ghost', C.STALE_POSITION, 'warning'],
  ];

  it.each(cases)('%s', (_name, mutate, path, code, severity = 'error') => {
    const doc = spec();
    mutate(doc);
    const res = validateSpecDocument(doc);
    const all = [...res.errors, ...res.warnings];
    expect(all).toContainEqual(issue(path, code, severity));
    // Reported once, even when both the spec schema and the IR rules see it.
    expect(all.filter((i) => i.path === path)).toHaveLength(1);
    expect(res.ok).toBe(severity === 'warning');
    expect(res.ir === undefined).toBe(severity === 'error');
  });

  it('ties registry checks to the spec field the value came from', () => {
    const doc = spec();
    doc.nodes.Render.operationId = 'svc/unknown';
    doc.nodes.Render['x-config'].colour = 'red';
    doc.nodes['User created']['x-action-ref'] = 'svc/nope';
    const res = validateSpecDocument(doc, {
      knownActionRefs: (ref) => ref === 'svc/event-source',
      nodeSettingsSchema: (ref) => (ref === 'svc/unknown' ? { properties: { template: {} } } : undefined),
      conditionError: () => 'unexpected token',
    });
    expect(res.errors).toEqual([issue('/nodes/User created/x-action-ref', C.UNKNOWN_ACTION_REF), issue('/nodes/Render/operationId', C.UNKNOWN_ACTION_REF)]);
    expect(res.warnings).toEqual([issue('/nodes/Render/x-config/colour', C.UNKNOWN_CONFIG_KEY, 'warning'), issue('/edges/1/x-condition', C.CONDITION_PARSE_ERROR, 'warning')]);
  });

  it('reports every problem at once', () => {
    const doc = spec();
    doc.flowdef = '0.9';
    doc.nodes.Render.kind = 'sink';
    delete doc.nodes['User created'].kind;
    doc.nodes.Done['x-id'] = 'src';
    doc.edges[0].from = 'Nobody';
    doc.edges[1].delivery.mode = 'later';
    delete doc.components;
    const res = validateSpecDocument(doc);
    expect(res.errors).toEqual(
      expect.arrayContaining([
        issue('/flowdef', C.UNSUPPORTED_VERSION),
        issue('/nodes/Render/kind', C.INVALID_VALUE),
        issue('/nodes/User created/kind', C.MISSING_FIELD),
        issue('/edges/1/delivery/mode', C.INVALID_VALUE),
        issue('/nodes/Done/x-id', C.DUPLICATE_ID),
        issue('/edges/0/from', C.UNKNOWN_NODE),
        issue('/nodes', C.NO_START_NODE),
      ]),
    );
    expect(res.errors).toHaveLength(7);
    expect(res.warnings).toEqual([issue('/edges/0/packet', C.UNKNOWN_PACKET, 'warning')]);
  });

  it.each([null, 'flowdef: 1.0', [], 7])('rejects a non-object document (%p) at the root', (doc) => {
    expect(validateSpecDocument(doc)).toEqual({ ok: false, errors: [issue('', C.INVALID_TYPE)], warnings: [] });
  });

  it('refuses more nodes than maxNodes before anything else', () => {
    const doc = spec();
    doc.flowdef = 'bad';
    expect(validateSpecDocument(doc, { maxNodes: 2 })).toEqual({ ok: false, errors: [issue('/nodes', C.TOO_MANY_NODES)], warnings: [] });
    expect(validateSpecDocument(spec(), { maxNodes: 3 }).ok).toBe(true);
  });
});
