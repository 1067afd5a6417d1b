import { conflictOf, draftProblems, labelProblems, draftToBody, labelsToText, parseRoute, routeUrl, splitSegments, splitSummary, textToLabels, type DeploymentDraft } from './deployments-view';

describe('deployments view', () => {
  it('splits relative weights into shares: 90+10 is 9+1, 0 is never selected', () => {
    expect(splitSegments([{ label: 'stable', weight: 9 }, { label: 'canary', weight: 1 }])).toEqual([
      { label: 'stable', weight: 9, percent: 90, offset: 0 },
      { label: 'canary', weight: 1, percent: 10, offset: 90 },
    ]);
    expect(splitSegments([{ label: 'a', weight: 1 }, { label: 'b', weight: 0 }, { label: 'c', weight: 2 }]).map((s) => s.percent)).toEqual([33.3, 0, 66.7]);
    expect(splitSummary([{ label: 'stable', weight: 90 }, { label: 'canary', weight: 10 }])).toBe('stable 90%, canary 10%');
    expect(splitSummary([{ label: 'stable', weight: 0 }])).toMatch(/503/);
  });

  it('parses x-route and fills its parameters, encoded, under /api/v1', () => {
    expect(parseRoute('POST /orders/{id}/greetings')).toEqual({ method: 'POST', path: '/orders/{id}/greetings', params: ['id'] });
    expect(parseRoute('FETCH /x')).toBeUndefined();
    expect(parseRoute('GET /x/*')).toBeUndefined();
    expect(routeUrl('/orders/{id}/greetings', { id: '4/2' }, '?a=1')).toEqual({ url: '/api/v1/orders/4%2F2/greetings?a=1', missing: [] });
    expect(routeUrl('/orders/{id}', {}).missing).toEqual(['id']);
  });

  it('edits labels as key=value lines and names the bad line', () => {
    const labels = { 'x-route': 'POST /orders', 'tag:shop': '' };
    expect(textToLabels(labelsToText(labels))).toEqual({ labels, problems: [] });
    expect(textToLabels('Bad Key=1\nx=1\nx=2').problems).toEqual(['Line 1: a label key uses a-z, 0-9 and . _ : / - only.', 'Line 3: the label x is given twice.']);
  });

  it('checks a draft before sending and builds the body', () => {
    const draft: DeploymentDraft = {
      name: ' Greetings ', kind: 'route', labelsText: 'x-route=POST /greet', stickyBy: '', authMode: 'perms', authPerms: 'orders:write, orders:read',
      variants: [{ label: 'stable', flowId: 'a', weight: 90 }, { label: 'canary', flowId: 'b', weight: 10 }],
    };
    expect(draftProblems(draft)).toEqual({});
    expect(draftToBody(draft)).toEqual({
      name: 'Greetings', kind: 'route', labels: { 'x-route': 'POST /greet' }, auth: { mode: 'perms', perms: ['orders:write', 'orders:read'] },
      variants: [{ label: 'stable', flowId: 'a', weight: 90 }, { label: 'canary', flowId: 'b', weight: 10 }],
    });
    const bad = draftProblems({ ...draft, name: '', labelsText: 'x-route=/greet', variants: [{ label: 'a', flowId: '', weight: -1 }, { label: 'a', flowId: 'b', weight: 1.5 }] });
    expect(Object.keys(bad).sort()).toEqual(['labels', 'name', 'variants.0.flowId', 'variants.0.weight', 'variants.1.label', 'variants.1.weight']);
  });

  it('reads the conflicting deployment from a 409 body', () => {
    expect(conflictOf({ statusCode: 409, code: 'ROUTE_CONFLICT', conflicting_deployment_id: 'greetings', conflicting_deployment_name: 'Greetings', method: 'POST', path: '/greet', detail: 'd' })).toEqual({
      id: 'greetings', name: 'Greetings', method: 'POST', path: '/greet', detail: 'd', flowId: undefined,
    });
    expect(conflictOf({ statusCode: 409, code: 'ROUTE_OWNED', owner: 'search' })).toBeUndefined();
  });

  it('names each label the server refused, for the labels field', () => {
    expect(labelProblems([{ field: 'labels.x-route', problems: ['a route deployment needs an x-route label'] }, { field: 'name', problems: ['x'] }])).toBe('x-route: a route deployment needs an x-route label');
    expect(labelProblems([{ field: 'name', problems: ['x'] }])).toBeUndefined();
  });
});
