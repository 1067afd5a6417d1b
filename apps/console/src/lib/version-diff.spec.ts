import { canonical, diffVersions } from './version-diff';
import type { FlowDocument } from './flow-types';

const v1: FlowDocument = {
  name: 'Echo',
  nodes: [
    { id: 'start', kind: 'start' },
    { id: 'render', kind: 'action', action_ref: 'svc/template-render', config: { template: 'Hello' } },
    { id: 'end', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'render' },
    { id: 'e2', from: 'render', to: 'end' },
  ],
  meta: { positions: { start: { x: 0, y: 0 }, render: { x: 240, y: 0 }, end: { x: 480, y: 0 } }, schemaVersion: 1 },
};

describe('version diff', () => {
  it('finds nothing between a version and itself, whatever the key order', () => {
    const copy = JSON.parse(JSON.stringify(v1));
    copy.nodes[1] = { config: { template: 'Hello' }, action_ref: 'svc/template-render', kind: 'action', id: 'render' };
    expect(diffVersions(v1, copy)).toMatchObject({ same: true, moved: [], other: [] });
  });

  it('lists nodes and edges added, removed and changed, with the fields that changed', () => {
    const v2: FlowDocument = {
      ...v1,
      nodes: [v1.nodes[0], { ...v1.nodes[1], config: { template: 'Hi' }, name: 'Greet' }, { id: 'mail', kind: 'action', action_ref: 'svc/email-send' }],
      edges: [{ ...v1.edges[0], condition: 'true' }, { id: 'e3', from: 'render', to: 'mail' }],
      meta: { ...v1.meta, positions: { ...v1.meta!.positions, render: { x: 250, y: 0 } } },
    };
    const d = diffVersions(v1, v2);
    expect(d.nodes.added.map((n) => n.id)).toEqual(['mail']);
    expect(d.nodes.removed.map((n) => n.id)).toEqual(['end']);
    expect(d.nodes.changed).toEqual([{ id: 'render', fields: ['config', 'name'] }]);
    expect(d.edges.added.map((e) => e.id)).toEqual(['e3']);
    expect(d.edges.removed.map((e) => e.id)).toEqual(['e2']);
    expect(d.edges.changed).toEqual([{ id: 'e1', fields: ['condition'] }]);
    expect(d.moved).toEqual(['render']);
    expect(d.same).toBe(false);
  });

  it('names other document changes apart from moves', () => {
    const d = diffVersions(v1, { ...v1, name: 'Echo 2', meta: { ...v1.meta, schemaVersion: 2 } });
    expect(d.other).toEqual(['name', 'meta.schemaVersion']);
    expect(d.moved).toEqual([]);
  });

  it('writes canonical JSON with sorted keys', () => {
    expect(canonical({ b: 1, a: { d: 1, c: [2, { f: 1, e: 0 }] } })).toBe('{"a":{"c":[2,{"e":0,"f":1}],"d":1},"b":1}');
  });
});
