import type { FlowDocument, JsonSchema, ValidationIssue } from './flow-document';
import { FLOW_ISSUE_CODES as C } from './flow-issue.codes';
import { unknownConfigKeys, validateFlowDocument, type FlowValidationOptions } from './flow-document.validator';

/** A valid document using every field: event-source start, template render, end. */
function valid(): FlowDocument {
  return {
    id: 'welcome',
    name: 'Welcome mail',
    description: 'Greets new users',
    nodes: [
      { id: 'start', name: 'On signup', kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'user.created', groupID: 'welcome' } },
      { id: 'render', name: 'Render', kind: 'action', action_ref: 'svc/template-render', config: { template: 'Hi {{name}}' } },
      { id: 'end', kind: 'end' },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'render' },
      { id: 'e2', from: 'render', to: 'end', port: 'Out', delivery_mode: 'checkpoint', condition: 'port == "Out"', packet: 'Greeting' },
    ],
    meta: {
      positions: { start: { x: 0, y: 0 }, render: { x: 200, y: 0 }, end: { x: 400, y: 0 } },
      packets: { Greeting: { type: 'object', properties: { text: { type: 'string' } } } },
      publish_with: ['mail/footer'],
      schemaVersion: 2,
      route: { method: 'POST', path: '/welcome' },
    },
  };
}

type Doc = Record<string, any>;
const issue = (path: string, code: string, severity: 'error' | 'warning' = 'error') => expect.objectContaining({ path, code, severity });

describe('validateFlowDocument', () => {
  it('accepts a valid document with no errors or warnings and returns it typed', () => {
    const doc = valid();
    const res = validateFlowDocument(doc);
    expect(res).toEqual({ ok: true, errors: [], warnings: [], document: doc });
    expect(res.document).toBe(doc);
  });

  it('accepts a minimal document: one start node, no edges, no meta (warning only for the position)', () => {
    const res = validateFlowDocument({ nodes: [{ id: 's', kind: 'start' }], edges: [] });
    expect(res.ok).toBe(true);
    expect(res.errors).toEqual([]);
    expect(res.warnings).toEqual([issue('/meta/positions/s', C.MISSING_POSITION, 'warning')]);
  });

  it('accepts every node kind and delivery mode', () => {
    const doc = valid();
    const kinds = ['event', 'gateway', 'condition', 'wait', 'parallel'] as const;
    kinds.forEach((kind, i) => {
      doc.nodes.push({ id: `k${i}`, kind });
      doc.meta!.positions![`k${i}`] = { x: i, y: i };
    });
    (['direct', 'ephemeral', 'checkpoint', 'durable', 'stream'] as const).forEach((mode, i) => doc.edges.push({ id: `m${i}`, from: 'render', to: `k${i}`, delivery_mode: mode }));
    expect(validateFlowDocument(doc)).toMatchObject({ ok: true, errors: [], warnings: [] });
  });

  const cases: Array<[string, (d: Doc) => void, string, string, ('error' | 'warning')?]> = [
    ['nodes missing', (d) => delete d.nodes, '/nodes', C.MISSING_FIELD],
    ['edges missing', (d) => delete d.edges, '/edges', C.MISSING_FIELD],
    ['nodes not a list', (d) => (d.nodes = {}), '/nodes', C.INVALID_TYPE],
    ['unknown top-level field', (d) => (d.nodez = []), '/nodez', C.UNKNOWN_FIELD],
    ['id empty', (d) => (d.id = ''), '/id', C.INVALID_VALUE],
    ['name not a string', (d) => (d.name = 5), '/name', C.INVALID_TYPE],
    ['node not an object', (d) => (d.nodes[1] = 'render'), '/nodes/1', C.INVALID_TYPE],
    ['node id missing', (d) => delete d.nodes[1].id, '/nodes/1/id', C.MISSING_FIELD],
    ['node id empty', (d) => (d.nodes[1].id = ''), '/nodes/1/id', C.INVALID_VALUE],
    ['node kind missing', (d) => delete d.nodes[2].kind, '/nodes/2/kind', C.MISSING_FIELD],
    ['node kind unknown', (d) => (d.nodes[1].kind = 'task'), '/nodes/1/kind', C.INVALID_VALUE],
    ['action without action_ref', (d) => delete d.nodes[1].action_ref, '/nodes/1/action_ref', C.MISSING_FIELD],
    ['action_ref empty', (d) => (d.nodes[1].action_ref = ''), '/nodes/1/action_ref', C.INVALID_VALUE],
    ['misspelt node field', (d) => (d.nodes[1].actionRef = 'x'), '/nodes/1/actionRef', C.UNKNOWN_FIELD],
    ['config not an object', (d) => (d.nodes[1].config = ['a']), '/nodes/1/config', C.INVALID_TYPE],
    ['edge not an object', (d) => (d.edges[0] = null), '/edges/0', C.INVALID_TYPE],
    ['edge id missing', (d) => delete d.edges[0].id, '/edges/0/id', C.MISSING_FIELD],
    ['edge to missing', (d) => delete d.edges[0].to, '/edges/0/to', C.MISSING_FIELD],
    ['edge delivery mode unknown', (d) => (d.edges[1].delivery_mode = 'async'), '/edges/1/delivery_mode', C.INVALID_VALUE],
    ['edge condition not a string', (d) => (d.edges[1].condition = true), '/edges/1/condition', C.INVALID_TYPE],
    ['edge port empty', (d) => (d.edges[1].port = ''), '/edges/1/port', C.INVALID_VALUE],
    ['misspelt edge field', (d) => (d.edges[1].deliveryMode = 'direct'), '/edges/1/deliveryMode', C.UNKNOWN_FIELD],
    ['meta not an object', (d) => (d.meta = []), '/meta', C.INVALID_TYPE],
    ['position not numeric', (d) => (d.meta.positions.start.x = '0'), '/meta/positions/start/x', C.INVALID_TYPE],
    ['position without y', (d) => delete d.meta.positions.start.y, '/meta/positions/start/y', C.MISSING_FIELD],
    ['packet schema not an object', (d) => (d.meta.packets.Greeting = 'string'), '/meta/packets/Greeting', C.INVALID_TYPE],
    ['publish_with not a list', (d) => (d.meta.publish_with = 'mail/footer'), '/meta/publish_with', C.INVALID_TYPE],
    ['schemaVersion not a number', (d) => (d.meta.schemaVersion = '2'), '/meta/schemaVersion', C.INVALID_TYPE],
    ['duplicate node id', (d) => (d.nodes[2].id = 'render'), '/nodes/2/id', C.DUPLICATE_ID],
    ['duplicate edge id', (d) => (d.edges[1].id = 'e1'), '/edges/1/id', C.DUPLICATE_ID],
    ['edge from an unknown node', (d) => (d.edges[0].from = 'ghost'), '/edges/0/from', C.UNKNOWN_NODE],
    ['edge to an unknown node', (d) => (d.edges[1].to = 'ghost'), '/edges/1/to', C.UNKNOWN_NODE],
    ['no start node', (d) => (d.nodes[0].kind = 'event'), '/nodes', C.NO_START_NODE],
    ['no nodes at all', (d) => ((d.nodes = []), (d.edges = []), (d.meta.positions = {})), '/nodes', C.NO_START_NODE],
    ['edge leaving an end node', (d) => d.edges.push({ id: 'e3', from: 'end', to: 'render' }), '/edges/2/from', C.END_NODE_HAS_OUTGOING_EDGE, 'warning'],
    ['edge packet not in meta.packets', (d) => (d.edges[1].packet = 'Farewell'), '/edges/1/packet', C.UNKNOWN_PACKET, 'warning'],
    ['edge packet with no meta.packets', (d) => delete d.meta.packets, '/edges/1/packet', C.UNKNOWN_PACKET, 'warning'],
    ['packet named like an Object.prototype member', (d) => (d.edges[1].packet = 'constructor'), '/edges/1/packet', C.UNKNOWN_PACKET, 'warning'],
    ['node without a position', (d) => delete d.meta.positions.render, '/meta/positions/render', C.MISSING_POSITION, 'warning'],
    ['position of no node', (d) => (d.meta.positions.ghost = { x: 1, y: 1 }), '/meta/positions/ghost', C.STALE_POSITION, 'warning'],
    ['pointer escaping of ids', (d) => d.nodes.push({ id: 'a/b~c', kind: 'wait' }), '/meta/positions/a~1b~0c', C.MISSING_POSITION, 'warning'],
  ];

  it.each(cases)('%s', (_name, mutate, path, code, severity = 'error') => {
    const doc = valid() as Doc;
    mutate(doc);
    const res = validateFlowDocument(doc);
    const all: ValidationIssue[] = [...res.errors, ...res.warnings];
    expect(all).toContainEqual(issue(path, code, severity));
    expect(res.ok).toBe(severity === 'warning');
    expect(res.document === undefined).toBe(severity === 'error');
    for (const i of all) {
      expect(i.message).toEqual(expect.any(String));
      expect(i.path === '' || i.path.startsWith('/')).toBe(true);
    }
  });

  it('reports a problem once (no duplicate schema errors for one field)', () => {
    const doc = valid() as Doc;
    delete doc.nodes[1].action_ref;
    const res = validateFlowDocument(doc);
    expect(res.errors).toEqual([issue('/nodes/1/action_ref', C.MISSING_FIELD)]);
    expect(res.errors[0].message).toMatch(/action node needs an action_ref/);
  });

  it.each([null, 42, 'nodes: []', [], true])('rejects a non-object document (%p) at the root', (doc) => {
    const res = validateFlowDocument(doc);
    expect(res.ok).toBe(false);
    expect(res.errors).toEqual([issue('', C.INVALID_TYPE)]);
  });

  it('reports every problem of a broken document at once, each with its path', () => {
    const doc = valid() as Doc;
    doc.extra = 1;
    doc.nodes[0].kind = 'event'; // no start node left
    doc.nodes[1].kind = 'task';
    doc.nodes[2].id = 'render';
    doc.edges[0].delivery_mode = 'sometimes';
    doc.edges[1].to = 'nowhere';
    doc.edges[1].packet = 'Missing';
    doc.edges.push({ id: 'e1', from: 'start' });
    doc.meta.positions.start.x = 'left';
    const res = validateFlowDocument(doc);
    expect(res.ok).toBe(false);
    expect(res.errors).toEqual(
      expect.arrayContaining([
        issue('/extra', C.UNKNOWN_FIELD),
        issue('/nodes/1/kind', C.INVALID_VALUE),
        issue('/edges/0/delivery_mode', C.INVALID_VALUE),
        issue('/edges/2/to', C.MISSING_FIELD),
        issue('/meta/positions/start/x', C.INVALID_TYPE),
        issue('/nodes/2/id', C.DUPLICATE_ID),
        issue('/edges/2/id', C.DUPLICATE_ID),
        issue('/edges/1/to', C.UNKNOWN_NODE),
        issue('/nodes', C.NO_START_NODE),
      ]),
    );
    expect(res.errors).toHaveLength(9);
    // The node renamed to "render" leaves the position of "end" pointing at nothing.
    expect(res.warnings).toEqual([issue('/edges/1/packet', C.UNKNOWN_PACKET, 'warning'), issue('/meta/positions/end', C.STALE_POSITION, 'warning')]);
  });

  describe('limits', () => {
    const many = (n: number): FlowDocument => ({
      nodes: Array.from({ length: n }, (_, i) => ({ id: `n${i}`, kind: i === 0 ? 'start' : 'wait' })),
      edges: [],
      meta: { positions: Object.fromEntries(Array.from({ length: n }, (_, i) => [`n${i}`, { x: i, y: 0 }])) },
    });

    it('accepts 500 nodes by default and refuses 501 with TOO_MANY_NODES only', () => {
      expect(validateFlowDocument(many(500)).ok).toBe(true);
      const doc = many(501) as Doc;
      doc.nodes[3].kind = 'bogus';
      expect(validateFlowDocument(doc)).toEqual({ ok: false, warnings: [], errors: [issue('/nodes', C.TOO_MANY_NODES)] });
    });

    it('honours maxNodes', () => {
      expect(validateFlowDocument(many(3), { maxNodes: 3 }).ok).toBe(true);
      const res = validateFlowDocument(many(4), { maxNodes: 3 });
      expect(res.errors).toEqual([issue('/nodes', C.TOO_MANY_NODES)]);
      expect(res.errors[0].message).toContain('at most 3');
    });
  });

  describe('checks that need the node registry', () => {
    const registry: FlowValidationOptions = {
      knownActionRefs: (ref) => ['svc/event-source', 'svc/template-render'].includes(ref),
      nodeSettingsSchema: (ref): JsonSchema | undefined =>
        ref === 'svc/template-render' ? { type: 'object', properties: { template: { type: 'string' } } } : undefined,
    };

    it('passes a document whose refs and config keys are all known', () => {
      expect(validateFlowDocument(valid(), registry)).toMatchObject({ ok: true, warnings: [] });
    });

    it('reports an unknown action_ref as an error, only when the registry is given', () => {
      const doc = valid();
      doc.nodes[1].action_ref = 'svc/unknown';
      expect(validateFlowDocument(doc).ok).toBe(true);
      const res = validateFlowDocument(doc, registry);
      expect(res.ok).toBe(false);
      expect(res.errors).toEqual([issue('/nodes/1/action_ref', C.UNKNOWN_ACTION_REF)]);
      expect(res.errors[0].message).toContain('svc/unknown');
    });

    it('warns that config keys outside the settings schema are dropped', () => {
      const doc = valid();
      doc.nodes[1].config = { template: 'x', colour: 'red', 'a/b': 1 };
      const res = validateFlowDocument(doc, registry);
      expect(res.ok).toBe(true);
      expect(res.warnings).toEqual([issue('/nodes/1/config/colour', C.UNKNOWN_CONFIG_KEY, 'warning'), issue('/nodes/1/config/a~1b', C.UNKNOWN_CONFIG_KEY, 'warning')]);
      expect(res.warnings[0].message).toMatch(/dropped/);
      expect(validateFlowDocument(doc).warnings).toEqual([]);
    });

    it('plugs in a condition parser: a condition that does not parse is a warning (it evaluates to false)', () => {
      const doc = valid();
      doc.edges[1].condition = 'port ==';
      const res = validateFlowDocument(doc, { conditionError: (src) => (src.endsWith('==') ? 'unexpected end of input' : undefined) });
      expect(res.ok).toBe(true);
      expect(res.warnings).toEqual([issue('/edges/1/condition', C.CONDITION_PARSE_ERROR, 'warning')]);
      expect(res.warnings[0].message).toContain('unexpected end of input');
    });
  });

  describe('node settings, cycles and packets', () => {
    const ports = (ref: string) =>
      ({
        'svc/template-render': { inputs: [{ port: 'in', schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }], outputs: [{ port: 'Out', schema: { type: 'object', properties: { text: { type: 'string' } } } }] },
        'svc/event-source': { inputs: [], outputs: [{ port: 'out', schema: { type: 'object' } }] },
      })[ref];

    it('reports what a settings schema refuses as INVALID_NODE_CONFIG errors at the config path', () => {
      const doc = valid();
      delete doc.nodes[0].config!.eventName;
      const res = validateFlowDocument(doc, {
        nodeConfigProblems: (n) => (n.action_ref === 'svc/event-source' && !n.config?.eventName ? [{ key: 'eventName', path: '/eventName', message: 'missing required field "eventName"' }] : []),
      });
      expect(res.ok).toBe(false);
      expect(res.errors).toEqual([issue('/nodes/0/config/eventName', C.INVALID_NODE_CONFIG)]);
      expect(res.errors[0].message).toBe('node "start" (svc/event-source): eventName missing required field "eventName"');
    });

    it('warns about a cycle without a wait node or an edge condition, once per cycle', () => {
      const doc = valid();
      doc.nodes.push({ id: 'a', kind: 'gateway' }, { id: 'b', kind: 'gateway' });
      doc.meta!.positions = { ...doc.meta!.positions, a: { x: 1, y: 1 }, b: { x: 2, y: 2 } };
      doc.edges.push({ id: 'back', from: 'render', to: 'render' }, { id: 'loop', from: 'render', to: 'start' }, { id: 'ab', from: 'a', to: 'b' }, { id: 'ba', from: 'b', to: 'a' });
      const res = validateFlowDocument(doc);
      expect(res.ok).toBe(true);
      const cycles = res.warnings.filter((w) => w.code === C.UNBOUNDED_CYCLE);
      expect(cycles).toEqual([issue('/edges/0', C.UNBOUNDED_CYCLE, 'warning'), issue('/edges/4', C.UNBOUNDED_CYCLE, 'warning')]);
      expect(cycles[1].message).toBe('nodes "a", "b" form a cycle with no wait node and no condition on its edges: a run goes round until it exceeds its step limit');
    });

    it('accepts a cycle bounded by a condition or a wait node', () => {
      const guarded = valid();
      guarded.edges.push({ id: 'retry', from: 'render', to: 'start', condition: 'input.attempt < 3' });
      expect(validateFlowDocument(guarded).warnings.filter((w) => w.code === C.UNBOUNDED_CYCLE)).toEqual([]);
      const waiting = valid();
      waiting.nodes.push({ id: 'pause', kind: 'wait' });
      waiting.meta!.positions!.pause = { x: 1, y: 1 };
      waiting.edges.push({ id: 'to-pause', from: 'render', to: 'pause' }, { id: 'resume', from: 'pause', to: 'render', condition: 'true' });
      expect(validateFlowDocument(waiting).warnings.filter((w) => w.code === C.UNBOUNDED_CYCLE)).toEqual([]);
      const spinning = valid();
      spinning.edges.push({ id: 'self', from: 'render', to: 'render', condition: 'true' });
      expect(validateFlowDocument(spinning).warnings.filter((w) => w.code === C.UNBOUNDED_CYCLE)).toEqual([issue('/edges/2', C.UNBOUNDED_CYCLE, 'warning')]);
    });

    it('warns when an edge packet does not match the ports it connects', () => {
      const doc = valid();
      doc.edges.push({ id: 'e3', from: 'start', to: 'render', packet: 'Greeting' });
      // Greeting {text: string}: the output port Out of render declares text (fine); render's input requires name.
      const res = validateFlowDocument(doc, { nodePorts: ports });
      expect(res.ok).toBe(true);
      expect(res.warnings).toEqual([issue('/edges/2/packet', C.PACKET_MISMATCH, 'warning')]);
      expect(res.warnings[0].message).toBe('packet "Greeting" does not match input port "in" of "render" (svc/template-render): the port requires field "name", which the packet does not declare');

      doc.meta!.packets!.Greeting = { type: 'object', properties: { text: { type: 'integer' }, name: { type: 'string' } } };
      const typed = validateFlowDocument(doc, { nodePorts: ports });
      expect(typed.warnings.map((w) => w.message)).toEqual([
        'packet "Greeting" does not match output port "Out" of "render" (svc/template-render): field "text" is integer here but string on the port',
      ]);
      expect(validateFlowDocument(doc).warnings).toEqual([]);
    });
  });

  describe('unknownConfigKeys', () => {
    it('treats an absent additionalProperties as closed (the spec drops undeclared keys)', () => {
      expect(unknownConfigKeys({ a: 1, b: 2 }, { properties: { a: {} } })).toEqual(['b']);
      expect(unknownConfigKeys({ a: 1 }, {})).toEqual(['a']);
    });
    it('allows every key when additionalProperties is true or a schema', () => {
      expect(unknownConfigKeys({ a: 1 }, { additionalProperties: true })).toEqual([]);
      expect(unknownConfigKeys({ a: 1 }, { additionalProperties: { type: 'string' } })).toEqual([]);
    });
    it('honours patternProperties and is safe for prototype member names', () => {
      expect(unknownConfigKeys({ 'x-a': 1, toString: 2, constructor: 3 }, { properties: {}, patternProperties: { '^x-': {}, '(': {} } })).toEqual(['toString', 'constructor']);
    });
  });
});
