import { pinProblems } from './validation-problems';
import type { FlowDocument } from './flow-types';

const doc: FlowDocument = {
  nodes: [
    { id: 'start', kind: 'start' },
    { id: 'call', kind: 'action', action_ref: 'svc/http-request', config: { url: 'x' } },
    { id: 'end', kind: 'end' },
  ],
  edges: [{ id: 'e1', from: 'start', to: 'call' }],
};

describe('validation problems → nodes', () => {
  it('pins a save 400 detail by JSON pointer, naming the config key', () => {
    const pinned = pinProblems(doc, [{ field: '/nodes/1/config/url', problems: ['must match format "uri"'], code: 'INVALID_NODE_CONFIG' }]);
    expect(pinned.nodes.get('call')).toEqual([{ message: 'must match format "uri"', severity: 'error', code: 'INVALID_NODE_CONFIG', key: 'url' }]);
    expect(pinned.general).toEqual([]);
  });

  it('pins a publish detail with a version prefix, a broken node by id, and a secrets refusal by its quoted node', () => {
    const pinned = pinProblems(doc, [
      { field: 'f@v2#/nodes/1/config/headers', problems: ['bad'] },
      { field: 'f@v2.nodes.call.action_ref', problems: ['no registered node svc/http-request'] },
      { field: 'whatever', problems: ['node "end": carries a secret'], code: 'SECRET_IN_NODE_CONFIG' },
    ]);
    expect(pinned.nodes.get('call')?.map((p) => p.key)).toEqual(['headers', 'action_ref']);
    expect(pinned.nodes.get('end')?.[0]).toMatchObject({ code: 'SECRET_IN_NODE_CONFIG' });
  });

  it('pins edge problems and version warnings, and keeps the rest general with its path', () => {
    const pinned = pinProblems(doc, [
      { path: '/edges/0/to', message: 'unknown node', severity: 'warning', code: 'UNKNOWN_NODE' },
      { path: '/nodes/9/kind', message: 'out of range' },
      { field: '/', problems: ['no start node'] },
      { path: '/meta/packets/p', message: 'bad packet' },
    ]);
    expect(pinned.edges.get('e1')).toEqual([{ message: 'unknown node', severity: 'warning', code: 'UNKNOWN_NODE' }]);
    expect(pinned.general.map((p) => p.message)).toEqual(['/nodes/9/kind: out of range', '/: no start node', '/meta/packets/p: bad packet']);
  });

  it('handles no problems', () => {
    expect(pinProblems(doc, undefined)).toEqual({ nodes: new Map(), edges: new Map(), general: [] });
  });
});
