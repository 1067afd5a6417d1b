import type { FlowDocument } from '@flowplane/flow/ir';
import { boundToReplacedNode, compileFlow, hashDocument } from './compile-flow';
import { FlowEngine } from './flow-engine';
import type { NodeManifest } from './node-manifest';
import { DuplicateNodeError, NodeRegistry } from './node-registry';

const manifest = (id: string): NodeManifest => ({ id, name: id, kind: 'action', inputs: [], outputs: [{ port: 'out' }] });

describe('NodeRegistry', () => {
  it('registers, lists by id, refuses duplicates unless replacing', () => {
    const r = new NodeRegistry();
    r.define(manifest('svc/b'), () => undefined).define(manifest('svc/a'), () => undefined);
    expect(r.list().map((m) => m.id)).toEqual(['svc/a', 'svc/b']);
    expect(r.has('svc/a')).toBe(true);
    expect(() => r.define(manifest('svc/a'), () => undefined)).toThrow(DuplicateNodeError);
    const h = () => undefined;
    r.register({ manifest: manifest('svc/a'), handler: h }, { replace: true });
    expect(r.get('svc/a')?.handler).toBe(h);
    expect(r.unregister('svc/a')).toBe(true);
    expect(r.get('svc/a')).toBeUndefined();
    expect(() => r.register({ manifest: manifest(''), handler: h })).toThrow(TypeError);
  });

  it('tells listeners about every change, and a compiled flow whether a node it uses was replaced', () => {
    const r = new NodeRegistry().define(manifest('svc/a'), () => undefined).define(manifest('svc/b'), () => undefined);
    const flow = compileFlow(
      { nodes: [{ id: 's', kind: 'start' }, { id: 'a', kind: 'action', action_ref: 'svc/a' }], edges: [{ id: 'e', from: 's', to: 'a' }] },
      r,
      { versionId: 'f@v1' },
    );
    const changes: string[] = [];
    const stop = r.onChange((id) => changes.push(id));
    expect(boundToReplacedNode(flow, r)).toBe(false);
    // Another node changing leaves the flow current.
    r.register({ manifest: manifest('svc/b'), handler: () => undefined }, { replace: true });
    expect(boundToReplacedNode(flow, r)).toBe(false);
    // Its own node registered again (a new manifest object): compile again.
    r.register({ manifest: manifest('svc/a'), handler: () => undefined }, { replace: true });
    expect(boundToReplacedNode(flow, r)).toBe(true);
    // Removed: not "replaced" (the step fails on the missing node instead).
    r.unregister('svc/a');
    expect(boundToReplacedNode(flow, r)).toBe(false);
    expect(r.unregister('svc/a')).toBe(false);
    stop();
    r.define(manifest('svc/c'), () => undefined);
    expect(changes).toEqual(['svc/b', 'svc/a', 'svc/a']);
  });
});

describe('compileFlow', () => {
  const registry = new NodeRegistry().define(manifest('t/a'), (ctx) => ({ port: 'out', packet: ctx.input }));

  it('indexes nodes and edges, compiles conditions once, and groups edges by port', () => {
    let compiles = 0;
    const document: FlowDocument = {
      nodes: [
        { id: 's', kind: 'start' },
        { id: 'a', kind: 'action', action_ref: 't/a' },
        { id: 'x', kind: 'end' },
        { id: 'y', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 's', to: 'a' },
        { id: 'e2', from: 'a', to: 'x', port: 'out', condition: 'packet.v > 1' },
        { id: 'e3', from: 'a', to: 'y', condition: 'true' },
        { id: 'e4', from: 'a', to: 'y', port: 'Other' },
      ],
    };
    const flow = compileFlow(document, registry, {
      compileCondition: (source) => {
        compiles++;
        return { source, isDefault: false, evaluate: () => ({ value: true }) };
      },
    });
    expect(compiles).toBe(1);
    expect([...flow.nodes.keys()]).toEqual(['s', 'a', 'x', 'y']);
    expect(flow.starts.map((n) => n.id)).toEqual(['s']);
    const a = flow.nodes.get('a')!;
    expect(a.route('out').conditional.map((e) => e.id)).toEqual(['e2']);
    expect(a.route('out').defaults.map((e) => e.id)).toEqual(['e3']);
    expect(a.route('Other').defaults.map((e) => e.id)).toEqual(['e3', 'e4']);
    expect(a.route('Unknown').defaults.map((e) => e.id)).toEqual(['e3']);
    expect(flow.hasCheckpoints).toBe(false);
    expect(Object.isFrozen(a.staticConfig)).toBe(true);
  });

  it('reports dangling edges and duplicate nodes as warnings and uses entry nodes without a start kind', async () => {
    const flow = compileFlow(
      {
        nodes: [
          { id: 'a', kind: 'action', action_ref: 't/a' },
          { id: 'a', kind: 'end' },
          { id: 'z', kind: 'end' },
        ],
        edges: [
          { id: 'e1', from: 'a', to: 'ghost' },
          { id: 'e2', from: 'a', to: 'z' },
        ],
      },
      registry,
    );
    expect(flow.warnings.map((w) => w.code).sort()).toEqual(['DANGLING_EDGE', 'DUPLICATE_NODE']);
    expect(flow.starts.map((n) => n.id)).toEqual(['a']);
    expect(await new FlowEngine().start(flow, 5).done).toMatchObject({ status: 'completed', output: 5, endNodeId: 'z' });
  });

  it('derives a stable version id from the document unless one is given', () => {
    const d: FlowDocument = { nodes: [{ id: 's', kind: 'start' }], edges: [] };
    expect(compileFlow(d, registry).versionId).toBe(hashDocument({ nodes: [{ id: 's', kind: 'start' }], edges: [] }));
    expect(compileFlow(d, registry, { versionId: 'v7' }).versionId).toBe('v7');
    expect(hashDocument({ ...d, name: 'other' })).not.toBe(hashDocument(d));
  });
});
