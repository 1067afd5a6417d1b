import { computeContributes, metaRouteOf, subscribedEventOf } from './contributes';
import { deriveTags, stableVariant } from './deployment';

describe('deployment tags', () => {
  it('turns tag: labels into tags and surfaces x-source, x-template-id, x-event and x-kind values', () => {
    expect(deriveTags({ 'tag:beta': '', 'tag:shop': 'yes', 'x-source': 'assistant', 'x-template-id': 'assistant/handoff', 'x-event': 'orders.created', 'x-kind': 'subscriber', owner: 'team-a', 'x-route': 'GET /x' })).toEqual([
      'assistant',
      'assistant/handoff',
      'beta',
      'orders.created',
      'shop',
      'subscriber',
    ]);
  });

  it('ignores the bare prefix, empty values and duplicates', () => {
    expect(deriveTags({ 'tag:': 'x', 'x-source': ' ', 'tag:assistant': '', 'x-kind': 'assistant' })).toEqual(['assistant']);
  });
});

describe('stable variant', () => {
  it('is the variant labelled stable, else the heaviest', () => {
    expect(stableVariant([{ label: 'a', flowId: 'f', weight: 1 }, { label: 'stable', flowId: 'g', weight: 0 }])?.flowId).toBe('g');
    expect(stableVariant([{ label: 'a', flowId: 'f', weight: 1 }, { label: 'b', flowId: 'g', weight: 5 }])?.flowId).toBe('g');
    expect(stableVariant([])).toBeUndefined();
  });
});

describe('contributes', () => {
  const doc = {
    nodes: [
      { id: 's', kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'orders.created' } },
      { id: 'm', kind: 'action', action_ref: 'svc/email-send' },
      { id: 'e', kind: 'action', action_ref: 'svc/emit-event', config: { topic: 'orders.noted' } },
    ],
    meta: { route: { method: 'get', path: '/orders/{id}/', success_status: 202, summary: 'Read' }, packets: { B: {}, A: {} } },
  };

  it('reads meta.route normalised, and the subscribed event from x-event or the event source', () => {
    expect(metaRouteOf(doc)).toEqual({ method: 'GET', path: '/orders/{id}', success_status: 202, summary: 'Read' });
    expect(metaRouteOf({ meta: { route: { path: '/x' } } })).toBeUndefined();
    expect(subscribedEventOf({}, doc)).toBe('orders.created');
    expect(subscribedEventOf({ 'x-event': 'refunds.created' }, doc)).toBe('refunds.created');
    expect(subscribedEventOf({}, { nodes: [] })).toBeUndefined();
  });

  it('lists the route, the consumed and published events and the packets', () => {
    expect(computeContributes({ kind: 'route', labels: {}, route: { method: 'GET', path: '/orders/{id}' } }, doc)).toEqual({
      routes: [{ method: 'GET', path: '/orders/{id}', success_status: 202, summary: 'Read' }],
      events: [
        { name: 'email.send', direction: 'publish' },
        { name: 'orders.noted', direction: 'publish' },
      ],
      packets: [
        { name: 'A', $ref: '#/components/schemas/A' },
        { name: 'B', $ref: '#/components/schemas/B' },
      ],
    });
    const sub = computeContributes({ kind: 'subscriber', labels: { 'x-event-filter': 'payload.total > 5' } }, doc);
    expect(sub.routes).toEqual([]);
    expect(sub.events[0]).toEqual({ name: 'orders.created', filter: 'payload.total > 5', direction: 'subscribe' });
    expect(computeContributes({ kind: 'route', labels: {}, route: { method: 'GET', path: '/x' } }, undefined).routes[0].success_status).toBe(200);
  });
});
