import { labelProblems } from './labels';

describe('deployment labels', () => {
  const fields = (labels: Record<string, string>) => labelProblems(labels).map((p) => p.field);

  it('accepts the canonical labels and tag: keys', () => {
    expect(labelProblems({ 'x-route': 'POST /orders/{id}', 'x-event': 'orders.created_v2-eu', 'x-event-filter': 'payload.total > 10 && payload.kind == "a"', 'tag:beta': '', 'team/owner': 'a', 'x-source': 'shop' })).toEqual([]);
  });

  it('refuses keys outside [a-z0-9._:/-]', () => {
    expect(fields({ 'Owner Team': 'a' })).toEqual(['labels.Owner Team']);
    expect(fields({ 'tag:Beta': '' })).toEqual(['labels.tag:Beta']);
    expect(fields({ '': 'x' })).toEqual(['labels.']);
  });

  it('wants x-route as METHOD /path with a known method and valid segments', () => {
    for (const bad of ['orders', 'GET orders', 'FETCH /orders', 'GET /orders/*', 'GET /a/{id}/{id}']) expect(fields({ 'x-route': bad })).toEqual(['labels.x-route']);
  });

  it('wants x-event as a topic name of at most 249 characters', () => {
    expect(fields({ 'x-event': 'Orders' })).toEqual(['labels.x-event']);
    expect(fields({ 'x-event': 'orders created' })).toEqual(['labels.x-event']);
    expect(fields({ 'x-event': 'a'.repeat(249) })).toEqual([]);
    expect(fields({ 'x-event': 'a'.repeat(250) })).toEqual(['labels.x-event']);
  });

  it('parses x-event-filter in the condition language and reports the column', () => {
    const [problem] = labelProblems({ 'x-event-filter': 'payload.total >' });
    expect(problem).toEqual({ field: 'labels.x-event-filter', problem: expect.stringMatching(/column 16/) });
    expect(fields({ 'x-event-filter': 'payload.a == (1' })).toEqual(['labels.x-event-filter']);
  });
});
